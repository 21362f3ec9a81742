// GEMM's naive kernel body (the study's): one work-item per element of C, every term of its dot
// product read from global memory. 2-D grid: x along N, y along M, rounded up to whole work-groups
// (the items beyond C do nothing). Included inside a kernel function (kernels/gemm/device.h).
{
  const int col = GEMM_GID_X * GEMM_LOCAL_X + GEMM_LID_X;
  const int row = GEMM_GID_Y * GEMM_LOCAL_Y + GEMM_LID_Y;
  if (row < M && col < N) {
    real sum = 0;
    for (int l = 0; l < K; ++l) {
      const real a = ta ? A[aoff + (long)l * lda + row] : A[aoff + (long)row * lda + l];
      sum = GEMM_FMA(a, B[boff + (long)l * ldb + col], sum);
    }
    C[coff + (long)row * ldc + col] = alpha * sum + beta * C[coff + (long)row * ldc + col];
  }
}
