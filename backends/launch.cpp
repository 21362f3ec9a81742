#include "backends/launch.hpp"

#include "common/errors.hpp"

namespace gpubench {

namespace {
constexpr const char* axis[] = {"x", "y", "z"};

std::string sizes(const Range3& r, unsigned dims) {
  std::string text = std::to_string(r.x);
  for (unsigned d = 1; d < dims; ++d) {
    text += 'x';
    text += std::to_string(r[d]);
  }
  return text;
}
}  // namespace

Geometry Geometry::of_groups(unsigned dims, Range3 groups, Range3 local) {
  return {dims, {groups.x * local.x, groups.y * local.y, groups.z * local.z}, local};
}

Range3 Geometry::groups() const {
  auto quotient = [](std::size_t g, std::size_t l) { return l == 0 ? 0 : g / l; };
  return {quotient(global.x, local.x), quotient(global.y, local.y), quotient(global.z, local.z)};
}

std::string Geometry::text() const {
  const unsigned shown = dims >= 1 && dims <= 3 ? dims : 3;
  return "global " + sizes(global, shown) + ", local " + sizes(local, shown);
}

void check_geometry(std::string_view kernel, const Geometry& g, const LaunchLimits& limits) {
  // The message is built only on failure: launches are on the timed path.
  auto fail = [&](const std::string& what) {
    throw DeviceError("kernel '" + std::string(kernel) + "' (" + g.text() + "): " + what);
  };
  if (g.dims < 1 || g.dims > 3)
    fail(std::to_string(g.dims) + " dimensions (a launch has 1, 2 or 3)");
  for (unsigned d = 0; d < 3; ++d) {
    const std::string dim = std::string("dimension ") + axis[d];
    if (d >= g.dims) {
      if (g.global[d] != 1 || g.local[d] != 1)
        fail(dim + " is not used by a " + std::to_string(g.dims) +
                          "-D launch: its sizes must be 1");
      continue;
    }
    if (g.global[d] == 0) fail("global size of " + dim + " is 0 (must be >= 1)");
    if (g.local[d] == 0) fail("local size of " + dim + " is 0 (must be >= 1)");
    if (g.global[d] % g.local[d] != 0)
      fail("local size " + std::to_string(g.local[d]) + " of " + dim +
                        " does not divide its global size " + std::to_string(g.global[d]));
    if (g.local[d] > limits.local[d])
      fail("local size " + std::to_string(g.local[d]) + " of " + dim +
                        " exceeds the device's limit of " + std::to_string(limits.local[d]) + " for that dimension");
    if (g.groups()[d] > limits.groups[d])
      fail(std::to_string(g.groups()[d]) + " groups along " + dim +
                        " exceed the device's limit of " + std::to_string(limits.groups[d]) + " for that dimension");
  }
  if (g.local.product() > limits.local_total)
    fail("a work-group of " + std::to_string(g.local.product()) +
                      " work-items exceeds the device's limit of " + std::to_string(limits.local_total));
}

}  // namespace gpubench
