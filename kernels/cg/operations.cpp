#include "kernels/cg/operations.hpp"

#include <map>

namespace gpubench::cg {

namespace {
std::map<std::string, OperationsFactory>& factories() {
  static std::map<std::string, OperationsFactory> f;
  return f;
}
}  // namespace

std::uint64_t device_bytes_needed(const CsrMatrix& a, Precision p, int vectors) {
  const std::uint64_t real = bytes_of(p);
  const auto rows = static_cast<std::uint64_t>(a.rows);
  const auto nnz = static_cast<std::uint64_t>(a.nnz());
  return (rows + 1) * 4 + nnz * (4 + real) + static_cast<std::uint64_t>(vectors) * rows * real;
}

void register_operations(const std::string& backend, OperationsFactory factory) {
  factories()[backend] = std::move(factory);
}

const OperationsFactory* find_operations(const std::string& backend) {
  auto it = factories().find(backend);
  return it == factories().end() ? nullptr : &it->second;
}

}  // namespace gpubench::cg
