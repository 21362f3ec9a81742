// The CUDA backend's library calls (the vendor variant, textbook CG from them alone: solver.cpp's
// make_library_cg): cusparseSpMV, cublas<t>dot, cublas<t>axpy and cublas<t>scal on the vectors of
// a CudaOperations, timed and profiled like its kernels under the names whose work they do. On a
// band of a matrix split across devices (distributed.hpp) they work the same: SpMV reads the halo.
#include <memory>
#include <type_traits>

#include "kernels/cg/cuda_operations.cuh"

namespace gpubench::cg {

template <typename T>
LibraryCalls* CudaOperations<T>::library() {
  if (!library_) {
    make_current();  // the handles and descriptors belong to this band's device
    library_ = std::make_unique<Library>(*this);
  }
  return library_.get();
}

template <typename T>
CudaOperations<T>::Library::Library(CudaOperations& owner)
    : ops(owner),
      blas(owner.stream_),
      sparse(owner.stream_),
      matrix(owner.rows_, owner.cols_, owner.nnz_, owner.row_ptr_.data(), owner.col_idx_.data(), owner.values_.data(),
             cuda_type<T>) {}

template <typename T>
void CudaOperations<T>::Library::prepare_spmv(Slot in_slot, Slot out_slot) {
  if (in) return;
  in.emplace(ops.cols_, ops.vector(in_slot), cuda_type<T>);  // its halo after its rows
  out.emplace(ops.rows_, ops.vector(out_slot), cuda_type<T>);
  const T one = 1;
  const T zero = 0;
  std::size_t bytes = 0;
  cuda::check(cusparseSpMV_bufferSize(sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix.get(), in->get(),
                                      &zero, out->get(), cuda_type<T>, spmv_algorithm, &bytes),
              "cusparseSpMV_bufferSize");
  work = cuda::DeviceBuffer<unsigned char>(bytes);
}

template <typename T>
void CudaOperations<T>::Library::spmv(Slot in_slot, Slot out_slot) {
  prepare_spmv(in_slot, out_slot);
  in->set_values(ops.vector(in_slot));
  out->set_values(ops.vector(out_slot));
  const T one = 1;
  const T zero = 0;
  ops.enqueue("spmv", [&] {
    cuda::check(cusparseSpMV(sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix.get(), in->get(), &zero,
                             out->get(), cuda_type<T>, spmv_algorithm, work.data()),
                "cusparseSpMV");
  });
}

template <typename T>
double CudaOperations<T>::Library::dot(Slot a, Slot b) {
  const T* x = ops.vector(a);
  const T* y = ops.vector(b);
  T result = 0;
  ops.enqueue("dot", [&] {
    if constexpr (std::is_same_v<T, double>)
      cuda::check(cublasDdot(blas.get(), ops.n_int(), x, 1, y, 1, &result), "cublasDdot");
    else
      cuda::check(cublasSdot(blas.get(), ops.n_int(), x, 1, y, 1, &result), "cublasSdot");
  });
  return static_cast<double>(result);  // host pointer mode: cuBLAS has waited for it
}

template <typename T>
void CudaOperations<T>::Library::axpy(double alpha, Slot x, Slot y) {
  const T a = real(alpha);
  const T* xv = ops.vector(x);
  T* yv = ops.vector(y);
  ops.enqueue("axpy", [&] {
    if constexpr (std::is_same_v<T, double>)
      cuda::check(cublasDaxpy(blas.get(), ops.n_int(), &a, xv, 1, yv, 1), "cublasDaxpy");
    else
      cuda::check(cublasSaxpy(blas.get(), ops.n_int(), &a, xv, 1, yv, 1), "cublasSaxpy");
  });
}

template <typename T>
void CudaOperations<T>::Library::scal(double alpha, Slot x) {
  const T a = real(alpha);
  T* xv = ops.vector(x);
  ops.enqueue("scale", [&] {
    if constexpr (std::is_same_v<T, double>)
      cuda::check(cublasDscal(blas.get(), ops.n_int(), &a, xv, 1), "cublasDscal");
    else
      cuda::check(cublasSscal(blas.get(), ops.n_int(), &a, xv, 1), "cublasSscal");
  });
}

template LibraryCalls* CudaOperations<float>::library();
template LibraryCalls* CudaOperations<double>::library();

}  // namespace gpubench::cg
