# The WebAssembly module: causal-attention.js, one classic script with the wasm embedded,
# so the page works from file:// and any static server. Included from CMakeLists.txt under
# emcmake only.

# The hand-written JS that ships inside the same file, after the Emscripten glue.
set(CA_WEB_LIBS
  ${CMAKE_SOURCE_DIR}/web/lib/api.js
  ${CMAKE_SOURCE_DIR}/web/lib/notes.js
  ${CMAKE_SOURCE_DIR}/web/lib/render.js)
set(CA_POST_JS ${CMAKE_BINARY_DIR}/post.js)
add_custom_command(
  OUTPUT ${CA_POST_JS}
  COMMAND cat ${CA_WEB_LIBS} > ${CA_POST_JS}
  DEPENDS ${CA_WEB_LIBS}
  COMMENT "Concatenating web/lib into post.js")
add_custom_target(ca_post_js DEPENDS ${CA_POST_JS})

add_executable(causal-attention-wasm src/wasm/bindings.cpp)
set_target_properties(causal-attention-wasm PROPERTIES OUTPUT_NAME causal-attention SUFFIX .js
                                                       LINK_DEPENDS ${CA_POST_JS})
add_dependencies(causal-attention-wasm ca_post_js)
target_link_libraries(causal-attention-wasm PRIVATE ca_core)
target_compile_options(causal-attention-wasm PRIVATE -O3 -DNDEBUG -flto)

set(CA_CLOSURE "--closure=1")
if(NOT DEFINED ENV{EM_CLOSURE_COMPILER})
  message(WARNING "EM_CLOSURE_COMPILER is not set: building without closure (bigger glue)")
  set(CA_CLOSURE "--closure=0")
endif()
target_link_options(causal-attention-wasm PRIVATE
  --bind
  -Oz                           # size for the link only: Eigen code stays -O3
  -flto
  ${CA_CLOSURE}
  -sSINGLE_FILE=1               # file:// forbids fetching a separate .wasm
  -sMODULARIZE=1
  -sEXPORT_NAME=CausalAttentionModule
  -sENVIRONMENT=web,node
  -sDYNAMIC_EXECUTION=0         # no eval/new Function: works under a CSP without 'unsafe-eval'
  -sALLOW_MEMORY_GROWTH=1
  -sFILESYSTEM=0
  -sASSERTIONS=0
  --extern-post-js=${CA_POST_JS})
