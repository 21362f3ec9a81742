// A value for each of a kernel's declared tunable parameters, by name (bench/tunable.hpp declares
// them). Kept free of the harness's headers: backends' .cu files include it.
#pragma once

#include <map>
#include <string>

namespace gpubench {

using Params = std::map<std::string, int>;

}  // namespace gpubench
