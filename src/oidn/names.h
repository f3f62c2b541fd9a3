// Parameter names as OIDN's entry points receive them: C strings that may be null.
#pragma once
#include <cstring>
#include <string>

namespace vx::oidn {

inline bool named(const char* name, const char* expected) { return name && std::strcmp(name, expected) == 0; }
inline std::string name_or_null(const char* name) { return name ? name : "(null)"; }

}  // namespace vx::oidn
