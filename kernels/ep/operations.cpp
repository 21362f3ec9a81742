#include "kernels/ep/operations.hpp"

#include <algorithm>

#include "common/errors.hpp"

namespace gpubench::ep {

const VariantTable<Variant>& variant_table() {
  static const VariantTable<Variant> table{
      "EP", {{Variant::reduce, "reduce"}, {Variant::partials, "partials"}, {Variant::serial, "serial"}}};
  return table;
}

std::string tally_kernel(Variant v) {
  return v == Variant::reduce ? "tally" : v == Variant::partials ? "tally_partials" : "serial";
}

void check_runs(const std::string& backend, Variant v) {
  if (v != Variant::serial || runs_serial(backend)) return;
  std::string hosts;
  for (const std::string& b : operations_registry().backends())
    if (runs_serial(b)) hosts += (hosts.empty() ? "" : ", ") + b;
  throw UsageError("EP's serial variant is NAS's serial code on one host thread: it runs on --backend " +
                   (hosts.empty() ? std::string("(none in this build)") : hosts) + ", not " + backend);
}

std::uint64_t whole_batches(std::uint64_t pairs) {
  const std::uint64_t batch = std::uint64_t{1} << batch_log2;
  if (pairs == 0 || pairs % batch != 0)
    throw UsageError("EP: " + std::to_string(pairs) + " pairs is not a whole number of batches of " +
                     std::to_string(batch));
  return pairs / batch;
}

Deal deal(const DeviceInfo& device, std::uint64_t pairs, const Params& launch, int largest_group) {
  grid::check(launch, "EP tally");
  const int size = grid::group_size_of(launch), per_cu = grid::groups_per_cu_of(launch);
  if (size > largest_group)
    throw UsageError("EP tally: work_group_size " + std::to_string(size) + " is outside 1.." +
                     std::to_string(largest_group) + " on " + device.label());
  const std::uint64_t batch = std::uint64_t{1} << batch_log2;
  Deal d;
  d.batches = whole_batches(pairs);
  d.items = static_cast<std::uint64_t>(per_cu) * static_cast<std::uint64_t>(std::max(device.compute_units, 1)) *
            static_cast<std::uint64_t>(size);
  const std::uint64_t most = (d.batches + d.items - 1) / d.items * batch;
  if (most > (std::uint64_t{1} << 32))
    throw UsageError("EP: " + std::to_string(most) + " pairs per work-item overflow its 32-bit counters: raise "
                     "work_groups_per_cu or work_group_size");
  return d;
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

}  // namespace gpubench::ep
