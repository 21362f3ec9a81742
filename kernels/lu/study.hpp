// The study's two OpenCL forms (Costa, Matsunaga & Brancher), written once over the small set of
// buffer and kernel operations an API supplies (StudyOps), as the study describes them: no
// pivoting, the host's row-major arrays, and at every step i:
//   naive:     create buffers for L, U and A, write all three, kernelCalculaFatores (factors of
//              column i into L, row i into U, guarded), read all three back, create the buffers
//              again, write all three, kernelAtualizaMatriz (guarded update), read A back;
//   optimised: the pivot column alone to the device, kernelCalculaFatoresOtimizado (every
//              factor computed, branch-free), the factors back; A and two vectors (the factors and
//              the pivot row) to the device, kernelAtualizaMatrizOtimizado (every element into an
//              auxiliary array, branch-free), the auxiliary array back, and the host's
//              atualizarMatrizA keeping the earlier steps' values.
// The clock (the host's) covers the whole decomposition, buffer creation and transfers included.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "kernels/lu/operations.hpp"

namespace gpubench::lu {

template <typename T>
class StudyOps {
 public:
  using Buffer = int;
  virtual ~StudyOps() = default;
  virtual Buffer create(std::size_t elements) = 0;  // a new device buffer
  virtual void release(Buffer b) = 0;
  virtual void write(Buffer b, const T* host, std::size_t elements) = 0;  // blocking
  virtual void read(Buffer b, T* host, std::size_t elements) = 0;         // blocking
  // n work-items: item t >= i: U[i][t] = A[i][t]; t > i: L[t][i] = A[t][i] / A[i][i].
  virtual void factors(Buffer l, Buffer u, Buffer a, int n, int i) = 0;
  // n x n work-items: item (k, j), k > i and j >= i: A[k][j] -= L[k][i] U[i][j].
  virtual void update(Buffer l, Buffer u, Buffer a, int n, int i) = 0;
  // n work-items: f[t] = column[t] / column[i].
  virtual void factors_optimised(Buffer column, Buffer f, int n, int i) = 0;
  // n x n work-items: aux[k][j] = A[k][j] - v[k] v[n + j] (v: the factors, then the pivot row).
  virtual void update_optimised(Buffer a, Buffer v, Buffer aux, int n, int i) = 0;
  virtual void finish() = 0;
};

// Runs form `v` on `a` (row-major n x n, overwritten by the factors: L's multipliers below the
// diagonal, U on and above). Host seconds; `times` gets buffers, transfers, kernels and host rows.
// It stops after the step during which the clock passes limit_s (0: after the first step).
template <typename T>
StudyRun run_study(StudyOps<T>& ops, Variant v, std::vector<T>& a, int n, StepTimes* times, double limit_s) {
  using clock = std::chrono::steady_clock;
  const auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  auto last = clock::now();
  const auto start = last;
  const auto lap = [&](const char* row) {
    if (!times) return;
    ops.finish();
    const auto now = clock::now();
    (*times)[row] += std::chrono::duration<double>(now - last).count();
    last = now;
  };
  const auto seconds = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  const auto over = [&](int i) {
    if (i + 1 == n) return false;
    ops.finish();
    return seconds() > limit_s;
  };
  if (v == Variant::naive) {
    std::vector<T> l(nn, T(0)), u(nn, T(0));
    for (int i = 0; i < n; ++i) {
      for (int pass = 0; pass < 2; ++pass) {
        const auto bl = ops.create(nn), bu = ops.create(nn), ba = ops.create(nn);
        lap("buffers");
        ops.write(bl, l.data(), nn);
        ops.write(bu, u.data(), nn);
        ops.write(ba, a.data(), nn);
        lap("transfers");
        if (pass == 0) {
          ops.factors(bl, bu, ba, n, i);
          lap("factors");
          ops.read(bl, l.data(), nn);
          ops.read(bu, u.data(), nn);
          ops.read(ba, a.data(), nn);
        } else {
          ops.update(bl, bu, ba, n, i);
          lap("update");
          ops.read(ba, a.data(), nn);
        }
        lap("transfers");
        ops.release(bl);
        ops.release(bu);
        ops.release(ba);
        lap("buffers");
      }
      if (over(i)) return {seconds(), i + 1};
    }
    // The factors as one matrix: L's multipliers below the diagonal, U on and above.
    for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k)
      for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j)
        a[k * n + j] = j >= k ? u[k * n + j] : l[k * n + j];
    lap("host");
  } else {
    std::vector<T> column(static_cast<std::size_t>(n)), f(static_cast<std::size_t>(n)),
        vec(2 * static_cast<std::size_t>(n)), aux(nn);
    for (int i = 0; i < n; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) column[k] = a[k * n + ui];
      lap("host");
      const auto bc = ops.create(static_cast<std::size_t>(n)), bf = ops.create(static_cast<std::size_t>(n));
      lap("buffers");
      ops.write(bc, column.data(), column.size());
      lap("transfers");
      ops.factors_optimised(bc, bf, n, i);
      lap("factors");
      ops.read(bf, f.data(), f.size());
      lap("transfers");
      ops.release(bc);
      ops.release(bf);
      lap("buffers");
      for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
        vec[k] = k > ui ? f[k] : T(0);
        vec[static_cast<std::size_t>(n) + k] = a[ui * n + k];
      }
      lap("host");
      const auto ba = ops.create(nn), bv = ops.create(vec.size()), bx = ops.create(nn);
      lap("buffers");
      ops.write(ba, a.data(), nn);
      ops.write(bv, vec.data(), vec.size());
      lap("transfers");
      ops.update_optimised(ba, bv, bx, n, i);
      lap("update");
      ops.read(bx, aux.data(), nn);
      lap("transfers");
      ops.release(ba);
      ops.release(bv);
      ops.release(bx);
      lap("buffers");
      // atualizarMatrizA: the rows below i take the update from column i + 1 on, and column i
      // takes the factors; the rest keeps the earlier steps' values.
      for (std::size_t k = ui + 1; k < static_cast<std::size_t>(n); ++k) {
        a[k * n + ui] = f[k];
        for (std::size_t j = ui + 1; j < static_cast<std::size_t>(n); ++j) a[k * n + j] = aux[k * n + j];
      }
      lap("host");
      if (over(i)) return {seconds(), i + 1};
    }
  }
  ops.finish();
  return {seconds(), n};
}

}  // namespace gpubench::lu
