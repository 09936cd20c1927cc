// Measurement only: CUTLASS's own sm80 TF32 mma.sync GEMM (the design
// kernel 16 follows: cp.async multistage, ldmatrix, mma.sync m16n8k8) on this GPU, to see how
// near cuBLAS TF32 NVIDIA's mma.sync kernels come on Hopper. Built here with nvcc into a shared
// library that benchmarks/cutlass_tf32/time_cutlass.py loads through ctypes on the device:
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I$CUTLASS/include \
//        cutlass_tf32.cu -o libcutlass_tf32.so
// C = A B, A row-major M x K, B row-major K x N (or column-major: B^T stored row-major), C row-major.
#include <cutlass/cutlass.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/epilogue/thread/linear_combination.h>

using RM = cutlass::layout::RowMajor;
using CM = cutlass::layout::ColumnMajor;

template <typename LayoutB, int BM, int BN, int BK, int WM, int WN, int Stages>
using G = cutlass::gemm::device::Gemm<
    float, RM, float, LayoutB, float, RM, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<BM, BN, BK>, cutlass::gemm::GemmShape<WM, WN, BK>,
    cutlass::gemm::GemmShape<16, 8, 8>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages>;

template <typename Gemm>
static int run(int M, int N, int K, const float* A, const float* B, float* C, cudaStream_t s) {
  using LB = typename Gemm::LayoutB;
  int ldb = std::is_same<LB, RM>::value ? N : K;
  typename Gemm::Arguments args({M, N, K}, {A, K}, {B, ldb}, {C, N}, {C, N}, {1.0f, 0.0f});
  Gemm gemm;
  cutlass::Status st = gemm.can_implement(args);
  if (st != cutlass::Status::kSuccess) return 100 + int(st);
  st = gemm.initialize(args, nullptr, s);
  if (st != cutlass::Status::kSuccess) return 200 + int(st);
  st = gemm(s);
  return st == cutlass::Status::kSuccess ? 0 : 300 + int(st);
}

extern "C" const char* config_name(int cfg) {
  switch (cfg) {
    case 0: return "128x128x16 w64x64 4st B col (example 14)";
    case 1: return "128x128x16 w64x64 4st B row";
    case 2: return "128x256x32 w64x64 3st B row (kernel 16's tiles)";
    case 3: return "256x128x32 w64x64 3st B row";
    case 4: return "128x128x32 w64x64 4st B row";
    case 5: return "128x256x32 w64x64 3st B col";
    case 6: return "256x128x32 w64x64 3st B col";
    case 7: return "128x128x32 w64x64 4st B col";
    case 8: return "128x128x32 w64x64 3st B col (2 blocks/SM)";
    case 9: return "128x128x16 w64x64 6st B col";
    case 10: return "256x128x16 w64x64 4st B col (2 blocks/SM)";
    case 11: return "128x256x16 w64x64 4st B col (2 blocks/SM)";
    case 12: return "256x128x16 w64x64 4st B row (2 blocks/SM)";
    case 13: return "128x256x16 w64x64 4st B row (2 blocks/SM)";
    case 14: return "128x128x32 w64x64 3st B row (2 blocks/SM)";
    default: return nullptr;
  }
}

extern "C" int run_gemm(int cfg, int M, int N, int K, const float* A, const float* B, float* C, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (cfg) {
    case 0: return run<G<CM, 128, 128, 16, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 1: return run<G<RM, 128, 128, 16, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 2: return run<G<RM, 128, 256, 32, 64, 64, 3>>(M, N, K, A, B, C, s);
    case 3: return run<G<RM, 256, 128, 32, 64, 64, 3>>(M, N, K, A, B, C, s);
    case 4: return run<G<RM, 128, 128, 32, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 5: return run<G<CM, 128, 256, 32, 64, 64, 3>>(M, N, K, A, B, C, s);
    case 6: return run<G<CM, 256, 128, 32, 64, 64, 3>>(M, N, K, A, B, C, s);
    case 7: return run<G<CM, 128, 128, 32, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 8: return run<G<CM, 128, 128, 32, 64, 64, 3>>(M, N, K, A, B, C, s);
    case 9: return run<G<CM, 128, 128, 16, 64, 64, 6>>(M, N, K, A, B, C, s);
    case 10: return run<G<CM, 256, 128, 16, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 11: return run<G<CM, 128, 256, 16, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 12: return run<G<RM, 256, 128, 16, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 13: return run<G<RM, 128, 256, 16, 64, 64, 4>>(M, N, K, A, B, C, s);
    case 14: return run<G<RM, 128, 128, 32, 64, 64, 3>>(M, N, K, A, B, C, s);
    default: return -1;
  }
}
