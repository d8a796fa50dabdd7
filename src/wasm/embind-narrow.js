/* global mergeInto, LibraryManager */
// A JS library for the module's link (src/wasm/wasm.cmake): the bindings pass no std::wstring,
// std::u16string or std::u32string, so Embind's registration of those types does nothing here,
// and the glue loses it and the UTF-16 and UTF-32 codecs only it used (closure drops them):
// about 500 bytes of gzip on every widget's first load. A binding that took a wide string would
// fail at once with Embind's "unbound type" error, never silently.
mergeInto(LibraryManager.library, {
  _embind_register_std_wstring: function () {},
});
