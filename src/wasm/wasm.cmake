# The WebAssembly module: causal-attention-wasm.js, a classic script with the wasm embedded,
# which causal-attention.js (the library) loads beside it, so the page works from file:// and
# from any static server. Included from CMakeLists.txt under emcmake only.
#
# Emscripten's SINGLE_FILE embeds the wasm as plain base64, which gzip barely compresses;
# src/wasm/pack.js instead embeds it deflated (the loader inflates it with the platform's
# DecompressionStream), about 9 KB less over the wire.

add_executable(causal-attention-module src/wasm/bindings.cpp)
target_link_libraries(causal-attention-module PRIVATE ca_core)
target_compile_options(causal-attention-module PRIVATE -Oz -DNDEBUG)

set(CA_CLOSURE "--closure=1")
if(NOT DEFINED ENV{EM_CLOSURE_COMPILER})
  message(WARNING "EM_CLOSURE_COMPILER is not set: building without closure (bigger glue)")
  set(CA_CLOSURE "--closure=0")
endif()
target_link_options(causal-attention-module PRIVATE
  --bind
  -Oz                           # size for the glue and wasm-opt; each object keeps its own -O
  -sBINARYEN_EXTRA_PASSES=--converge  # wasm-opt's passes repeated until nothing changes: -0.5 KB
  ${CA_CLOSURE}
  -sMODULARIZE=1
  -sEXPORT_NAME=CausalAttentionModule
  -sENVIRONMENT=web,worker      # worker: lib/worker.js runs big configurations off the main
                                # thread. Node needs no branch of its own: the loader passes
                                # the wasm's bytes (wasmBinary), nothing is read from disk
  -sDYNAMIC_EXECUTION=0         # no eval/new Function: works under a CSP without 'unsafe-eval'
  -sALLOW_MEMORY_GROWTH=1
  -sMALLOC=emmalloc             # a small allocator: the module's heap use is tiny
  -sFILESYSTEM=0
  -sINCOMING_MODULE_JS_API=['instantiateWasm']  # the loader instantiates the wasm it compiled
                                # (lib/module.js; a Worker gets the page's), nothing else
  -sWASM_ASYNC_COMPILATION=0    # compiled at once: the async compile's reply waited behind the
                                # page's first layout (~50 ms of its load); lazy tiers keep it fast
  -sTEXTDECODER=2               # every browser with DecompressionStream has TextDecoder
  -sNODEJS_CATCH_EXIT=0         # a library: Node's uncaughtException and unhandledRejection
  -sNODEJS_CATCH_REJECTION=0    # stay the host's (the core never calls exit())
  -sASSERTIONS=0
  --js-library=${CMAKE_SOURCE_DIR}/src/wasm/embind-narrow.js)  # no wide strings: see the file
set_property(TARGET causal-attention-module APPEND PROPERTY LINK_DEPENDS
             ${CMAKE_SOURCE_DIR}/src/wasm/embind-narrow.js)

# wasm-opt -Oz once more over the linked module, to a fixed point (the pass inside the link
# runs before Emscripten's last dead-code pass): -246 bytes deflated, the same instructions'
# semantics (no fast-math: the same bits), the same speed (CPU time of a run, Node, measured).
# Every module target gets it, so that the bench and named modules stay the shipped code.
find_program(CA_WASM_OPT wasm-opt REQUIRED)
function(ca_wasm_opt target)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CA_WASM_OPT} $<TARGET_FILE_DIR:${target}>/${target}.wasm ${ARGN} -Oz --converge
            --enable-simd --enable-sign-ext --enable-mutable-globals
            --enable-nontrapping-float-to-int --enable-bulk-memory
            -o $<TARGET_FILE_DIR:${target}>/${target}.wasm
    VERBATIM)
endfunction()
ca_wasm_opt(causal-attention-module)

# bench/compare.sh's module: the page's bindings plus the bench entry (benchSetup, benchRun),
# which the page never calls and so does not ship. Built with the rest: tests/js/bench.test.js
# loads it as bench/compare_wasm.js does.
add_executable(causal-attention-bench
  src/wasm/bindings.cpp src/wasm/bench_bindings.cpp)
target_link_libraries(causal-attention-bench PRIVATE ca_bench_workloads)
target_compile_options(causal-attention-bench PRIVATE -Oz -DNDEBUG)
get_target_property(CA_MODULE_LINK_OPTIONS causal-attention-module LINK_OPTIONS)
target_link_options(causal-attention-bench PRIVATE ${CA_MODULE_LINK_OPTIONS})
ca_wasm_opt(causal-attention-bench)

# The page's module with function names (--profiling-funcs), for build-scripts/wasm-sizes.js.
# Same objects and flags: its code section is the shipped one's, byte for byte.
add_executable(causal-attention-named EXCLUDE_FROM_ALL src/wasm/bindings.cpp)
target_link_libraries(causal-attention-named PRIVATE ca_core)
target_compile_options(causal-attention-named PRIVATE -Oz -DNDEBUG)
target_link_options(causal-attention-named PRIVATE ${CA_MODULE_LINK_OPTIONS} --profiling-funcs)
ca_wasm_opt(causal-attention-named --debuginfo)  # keeps the name section

# The hand-written JS that ships in the same file, after the glue and the wasm: ES modules
# that src/wasm/pack.js bundles (web/lib/index.js and what it imports).
# The page's scripts too: causal-attention.js registers what they import from it.
file(GLOB CA_WEB_LIBS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/web/lib/*.js ${CMAKE_SOURCE_DIR}/web/*.js
     ${CMAKE_SOURCE_DIR}/web/page/*.js)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/causal-attention.js ${CMAKE_BINARY_DIR}/causal-attention-wasm.js
         ${CMAKE_BINARY_DIR}/causal-attention-wasm-data.js
         ${CMAKE_BINARY_DIR}/causal-attention-later.js
  COMMAND node ${CMAKE_SOURCE_DIR}/src/wasm/pack.js
          $<TARGET_FILE:causal-attention-module>
          ${CMAKE_BINARY_DIR}/causal-attention-module.wasm
          ${CMAKE_BINARY_DIR}/causal-attention.js
  DEPENDS causal-attention-module ${CMAKE_SOURCE_DIR}/src/wasm/pack.js ${CA_WEB_LIBS}
          ${CMAKE_SOURCE_DIR}/src/texts.json  # the notes and help (web/lib/texts.js)
  COMMENT "Packing causal-attention.js (web/lib), -wasm.js (deflated wasm, glue) and -later.js")
add_custom_target(causal-attention-js ALL DEPENDS ${CMAKE_BINARY_DIR}/causal-attention.js)

# tests/js/kernels.test.js runs it: the SIMD128 kernels against the reference kernel, in Node
# (tests/wasm/kernels.cpp). Not part of the page.
add_executable(ca-kernel-check tests/wasm/kernels.cpp)
target_link_libraries(ca-kernel-check PRIVATE ca_core)
# It reads the relaxed-SIMD exp's module (exp_relaxed.inc) to compare its constants.
target_include_directories(ca-kernel-check PRIVATE ${CMAKE_BINARY_DIR}/generated)
set_source_files_properties(tests/wasm/kernels.cpp PROPERTIES OBJECT_DEPENDS ${CA_EXP_RELAXED})
target_compile_options(ca-kernel-check PRIVATE -O2 -DNDEBUG -msimd128)
target_link_options(ca-kernel-check PRIVATE -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node
                    -sSINGLE_FILE=1 -sNODEJS_CATCH_EXIT=0)

# bench/passes.cpp in WASM (bench/passes.js runs it beside the native ca_passes). Not built by
# build.sh: `cmake --build build/wasm --target ca-passes`.
add_executable(ca-passes EXCLUDE_FROM_ALL bench/passes.cpp)
target_link_libraries(ca-passes PRIVATE ca_core)
target_compile_options(ca-passes PRIVATE -O2 -DNDEBUG -msimd128)
target_link_options(ca-passes PRIVATE -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node
                    -sSINGLE_FILE=1 -sNODEJS_CATCH_EXIT=0)
