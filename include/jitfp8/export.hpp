// JITFP8_API marks what libjitfp8.so exports: the functions and classes declared in include/jitfp8.
// The library is compiled with hidden visibility, so its internals (src/, and the templates of fmt,
// nlohmann::json and the standard library it instantiates) stay inside it and cannot clash with a
// consumer's own copies.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define JITFP8_API __attribute__((visibility("default")))
#else
#define JITFP8_API
#endif
