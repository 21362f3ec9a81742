// The CUDA backend's vendor CG: textbook CG from cuSPARSE and cuBLAS calls alone, on the vectors
// of the CudaOperations that made it, timed and profiled like the kernels.
#include <memory>
#include <type_traits>

#include "kernels/cg/cuda_operations.cuh"

namespace gpubench::cg {

namespace {

// Textbook CG from library calls alone (vendor variant), on the vectors of the CudaOperations that
// made it: slot 0 b, then x, r, p, Ap.
template <typename T>
class LibraryCg final : public Solver {
  enum : Slot { b = rhs_slot, x, r, p, ap, count };

 public:
  explicit LibraryCg(CudaOperations<T>& owner) : owner_(&owner) {}
  int vectors() const override { return count; }
  void start(Operations& ops) override {
    auto& cuda = owned(ops);
    cuda.prepare_library_spmv(p, ap);
    cuda.fill_zero(x);
    cuda.copy(b, r);
    cuda.copy(r, p);
    rr_ = cuda.library_dot(r, r);
  }
  void step(Operations& ops) override {
    auto& cuda = owned(ops);
    cuda.library_spmv(p, ap);
    const double alpha = checked_ratio(rr_, cuda.library_dot(p, ap), "p.Ap");
    cuda.library_axpy(alpha, p, x);
    cuda.library_axpy(-alpha, ap, r);
    const double rr_new = cuda.library_dot(r, r);
    const double beta = rr_new / rr_;
    cuda.library_scal(beta, p);  // p = r + beta p, as a library writes it: p = beta p; p += r
    cuda.library_axpy(1.0, r, p);
    rr_ = rr_new;
  }
  double residual_sq() const override { return rr_; }
  double final_residual_sq(Operations&) override { return rr_; }
  Slot solution() const override { return x; }

 private:
  CudaOperations<T>& owned(Operations& ops) const {
    if (&ops != static_cast<Operations*>(owner_))
      throw Error(ExitCode::internal, "the CUDA vendor CG runs only on the Operations that made it");
    return *owner_;
  }

  CudaOperations<T>* owner_;
  double rr_ = 0;
};

}  // namespace

template <typename T>
std::unique_ptr<Solver> CudaOperations<T>::make_vendor_solver() {
  if (!library_) library_ = std::make_unique<Library>(stream_, rows_, nnz_, row_ptr_, col_idx_, values_);
  return std::make_unique<LibraryCg<T>>(*this);
}

template <typename T>
void CudaOperations<T>::prepare_library_spmv(Slot in, Slot out) {
  Library& lib = library();
  if (lib.in) return;
  lib.in.emplace(rows_, vector(in), cuda_type<T>);
  lib.out.emplace(rows_, vector(out), cuda_type<T>);
  const T one = 1;
  const T zero = 0;
  std::size_t bytes = 0;
  cuda::check(cusparseSpMV_bufferSize(lib.sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, lib.matrix.get(),
                                      lib.in->get(), &zero, lib.out->get(), cuda_type<T>, spmv_algorithm, &bytes),
              "cusparseSpMV_bufferSize");
  lib.work = cuda::DeviceBuffer<unsigned char>(bytes);
}

template <typename T>
void CudaOperations<T>::library_spmv(Slot in, Slot out) {
  Library& lib = library();
  prepare_library_spmv(in, out);
  lib.in->set_values(vector(in));
  lib.out->set_values(vector(out));
  const T one = 1;
  const T zero = 0;
  enqueue("spmv", [&] {
    cuda::check(cusparseSpMV(lib.sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, lib.matrix.get(),
                             lib.in->get(), &zero, lib.out->get(), cuda_type<T>, spmv_algorithm, lib.work.data()),
                "cusparseSpMV");
  });
}

template <typename T>
double CudaOperations<T>::library_dot(Slot a, Slot b) {
  const cublasHandle_t blas = library().blas.get();
  const T* x = vector(a);
  const T* y = vector(b);
  T result = 0;
  enqueue("dot", [&] {
    if constexpr (std::is_same_v<T, double>)
      cuda::check(cublasDdot(blas, n_int(), x, 1, y, 1, &result), "cublasDdot");
    else
      cuda::check(cublasSdot(blas, n_int(), x, 1, y, 1, &result), "cublasSdot");
  });
  return static_cast<double>(result);  // host pointer mode: cuBLAS has waited for it
}

template <typename T>
void CudaOperations<T>::library_axpy(double alpha, Slot x, Slot y) {
  const cublasHandle_t blas = library().blas.get();
  const T a = real(alpha);
  const T* xv = vector(x);
  T* yv = vector(y);
  enqueue("axpy", [&] {
    if constexpr (std::is_same_v<T, double>)
      cuda::check(cublasDaxpy(blas, n_int(), &a, xv, 1, yv, 1), "cublasDaxpy");
    else
      cuda::check(cublasSaxpy(blas, n_int(), &a, xv, 1, yv, 1), "cublasSaxpy");
  });
}

template <typename T>
void CudaOperations<T>::library_scal(double alpha, Slot x) {
  const cublasHandle_t blas = library().blas.get();
  const T a = real(alpha);
  T* xv = vector(x);
  enqueue("scale", [&] {
    if constexpr (std::is_same_v<T, double>)
      cuda::check(cublasDscal(blas, n_int(), &a, xv, 1), "cublasDscal");
    else
      cuda::check(cublasSscal(blas, n_int(), &a, xv, 1), "cublasSscal");
  });
}

template std::unique_ptr<Solver> CudaOperations<float>::make_vendor_solver();
template std::unique_ptr<Solver> CudaOperations<double>::make_vendor_solver();

}  // namespace gpubench::cg
