// A user's kernel spec: one JSON file (schema "gpubench-kernel-spec", version 1; the JSON
// Schema is kernels/spec/kernel-spec.schema.json, `gpubench schema --spec` prints it) that
// declares a kernel's sources per API, its sizes, buffers and scalars, its launch steps, its
// tunables and constraints, its work model and how its output is verified. Reading it checks
// everything that does not need a device; every error is an InputError that names the file and
// the field ("spec k.json: buffers.out.length: ...").
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/params.hpp"
#include "bench/tunable.hpp"
#include "common/precision.hpp"
#include "kernels/spec/expression.hpp"

namespace gpubench::spec {

enum class Elem { f32, f64, real, i32, u32, i64, u64 };
std::size_t elem_bytes(Elem e, Precision p);
// The values an integer element type holds, as doubles (i64 and u64 up to 2^53, what a double holds exactly).
std::pair<double, double> integer_range(Elem type);
std::string to_string(Elem e);

struct Init {
  enum Kind { zero, constant, random, ramp, file } kind = zero;
  double a = 0, b = 0;     // constant: a; random: [a, b]; ramp: start a, step b
  std::uint64_t seed = 1;  // random
  std::string path;        // file: raw little-endian elements, exactly the buffer's length
};

struct Buffer {
  std::string name;
  Elem type = Elem::real;
  std::string length;  // an integer expression of the sizes and tunables
  Init init;
  bool output = false;  // verified after every run
  bool reset = false;   // its initial contents uploaded again before every run (a kernel that accumulates)
};

// A kernel argument: a buffer, or a scalar of a C type from an expression (whole types) or a number.
struct Arg {
  enum Kind { buffer, i32, u32, i64, u64, f32, f64, real } kind = buffer;
  std::string text;  // the buffer's name, or the integer expression
  double number = 0; // f32, f64, real
};

struct Step {
  std::string kernel;
  std::vector<Arg> args;
  std::vector<std::string> global, local;  // 1 to 3 expressions each (work-items, OpenCL's sense)
  std::string flops, bytes;                // optional: this step's share, for --breakdown
};

struct Verify {
  // reference: the reference steps (`reference.kernel` or `reference.steps`) with the tunables
  // fixed at `params`; expected: a file per output buffer.
  std::vector<Step> reference;
  Params reference_params;
  std::map<std::string, std::string> expected;  // buffer -> file
  double abs = 0, rel = 0;
};

struct Spec {
  std::string path, dir;  // the file as given, and its folder (relative paths inside resolve there)
  std::string name, description;
  std::string opencl_source, cuda_source;  // the files' texts (a portable body: the same text in both)
  std::string opencl_file, cuda_file;      // where each came from
  std::string openmp_source, openmp_file;  // C++ with OpenMP pragmas, a function per step (kernels/spec/openmp.cpp),
                                           // after a #line that names its file
  std::string omp_target_source, omp_target_file;  // the same with target regions over device pointers, for
                                                   // the offload backends (kernels/spec/omp_target.cpp)
  bool portable = false;                   // each API puts its GB_* macros before the text (operations.hpp)
  std::vector<Precision> precisions;
  std::vector<std::pair<std::string, std::int64_t>> sizes;  // in declared order, with defaults
  std::vector<Buffer> buffers;
  TunableSpace space;                       // the tunables, and the constraints (each over a device: see constraints_for)
  std::vector<std::pair<std::string, std::string>> constraints;  // description, expression
  Params defaults;                          // the heuristic: the spec's "defaults", else the first legal configuration
  std::vector<Step> steps;
  std::string flops, bytes;                 // the work model, real expressions
  Verify verify;
  std::string sha256;                       // of the spec file and every source and data file it names

  // "spec FILE: FIELD: what": the InputError text every check raises.
  std::string where(const std::string& field) const { return "spec " + path + ": " + field; }
  const Buffer* buffer(const std::string& name) const;
  // The sizes with --problem's overrides ("n=4096,m=2048"): an InputError naming a size the spec
  // lacks, a value that is not a whole number, or one below 1.
  std::vector<std::pair<std::string, std::int64_t>> sizes_for(const std::string& problem) const;
  // "n=4096,m=2048": the problem's name in records.
  static std::string problem_name(const std::vector<std::pair<std::string, std::int64_t>>& sizes);
};

// The variables an expression sees: the sizes, the tunables (`params`), and the built-ins
// real_bytes (4 or 8), max_group, local_mem and compute_units of `device`.
struct DeviceLimits {
  std::int64_t max_group = 1024, local_mem = 49152, compute_units = 1;
};
IntVars variables(const std::vector<std::pair<std::string, std::int64_t>>& sizes, const Params& params, Precision p,
                  const DeviceLimits& device);

// Reads and checks `path`: an InputError naming the file and the field for anything wrong.
Spec load(const std::string& path);

// The tunable space on a device and problem: the spec's tunables with its constraints
// evaluated over those sizes and limits. A constraint that cannot be evaluated counts as broken.
TunableSpace space_for(const Spec& spec, const std::vector<std::pair<std::string, std::int64_t>>& sizes, Precision p,
                       const DeviceLimits& device);

// What a buffer starts with: `count` elements of `type` (`p` for real), as bytes.
std::vector<unsigned char> initial_contents(const Spec& spec, const Buffer& b, std::int64_t count, Precision p);

// Compares `got` against `want` (count elements of `type`): "" when every element is within
// abs + rel * |want|, else which elements are off and by how much ("buffer `out`: 3 of 4096
// elements off; the first at [17]: 1.5 against 2 (|diff| 0.5 > 1e-06); the largest ...").
std::string compare(const std::string& buffer, Elem type, Precision p, const void* got, const void* want,
                    std::int64_t count, double abs, double rel);

// The guard zone after each buffer, filled with this byte, checked after every run: as long as the
// buffer itself, at least 1024 elements and 64 KiB, at most 64 MiB (guard_elements_of), so that a
// write past the end by up to the buffer's own length (a doubled index, an offset by n) is caught.
constexpr unsigned char canary = 0xA5;
constexpr std::int64_t guard_elements = 1024;
constexpr std::int64_t guard_min_bytes = std::int64_t(64) << 10, guard_max_bytes = std::int64_t(64) << 20;
inline std::int64_t guard_elements_of(std::int64_t length, std::size_t elem) {
  const auto e = static_cast<std::int64_t>(elem);
  const std::int64_t least = std::max(guard_elements, guard_min_bytes / e);
  return std::max(least, std::min(length, guard_max_bytes / e));
}
// "" when the zone is intact, else "wrote past the end of buffer `out` by N elements".
std::string guard_damage(const std::string& buffer, const unsigned char* zone, std::size_t zone_bytes, std::size_t elem);

// SHA-256 of `data`, in hex.
std::string sha256(const std::string& data);

}  // namespace gpubench::spec
