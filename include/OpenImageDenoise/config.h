/* Volvox's OpenImageDenoise compatibility layer: the configuration OIDN's own config.h gives.
 * This file, oidn.h and oidn.hpp are written for Volvox from OIDN's public documentation and
 * headers (the specification); they declare OIDN 2.4's API with its names, types, enum values and
 * calling conventions, so that a program built against either set of headers links against either
 * library (libOpenImageDenoise.so.2). */
#pragma once

/* The OIDN API version this library implements. */
#define OIDN_VERSION_MAJOR 2
#define OIDN_VERSION_MINOR 4
#define OIDN_VERSION_PATCH 1
#define OIDN_VERSION 20401
#define OIDN_VERSION_STRING "2.4.1"
#define OIDN_VERSION_STRING_SHORT "2.4.1"

/* Which implementation this is, for programs that want to know. */
#define OIDN_VOLVOX 1

/* The C API is not in a C++ namespace (OIDN's default build). */
#define OIDN_API_NAMESPACE_BEGIN
#define OIDN_API_NAMESPACE_END
#define OIDN_API_NAMESPACE_USING
#if defined(__cplusplus)
  #define OIDN_API_EXTERN_C extern "C"
#else
  #define OIDN_API_EXTERN_C
#endif
#define OIDN_NAMESPACE oidn
#define OIDN_NAMESPACE_C oidn
#define OIDN_NAMESPACE_BEGIN namespace oidn {
#define OIDN_NAMESPACE_END }
#define OIDN_NAMESPACE_USING using namespace OIDN_NAMESPACE;

#define OIDN_API_IMPORT OIDN_API_EXTERN_C
#define OIDN_API_EXPORT OIDN_API_EXTERN_C __attribute__((visibility("default")))
#if defined(OpenImageDenoise_EXPORTS)
  #define OIDN_API OIDN_API_EXPORT
#else
  #define OIDN_API OIDN_API_IMPORT
#endif

#define OIDN_DEPRECATED(msg) __attribute__((deprecated(msg)))

/* What this build has: the CPU device, the Vulkan device (a Volvox extension: see oidn.h) and
 * both filters. */
#if !defined(OIDN_DEVICE_CPU)
  #define OIDN_DEVICE_CPU
#endif
#if !defined(OIDN_DEVICE_VULKAN)
  #define OIDN_DEVICE_VULKAN
#endif
#define OIDN_FILTER_RT
#define OIDN_FILTER_RTLIGHTMAP
