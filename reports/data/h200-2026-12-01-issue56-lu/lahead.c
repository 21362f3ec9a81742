// Issue 56 item 2: how LU's look-ahead pattern runs on NVIDIA's OpenCL. Queue 0 runs a short
// kernel A and marks it; queue 1 waits for that mark and runs the "panel" P (a chain of small
// kernels, one work-group per SM each); queue 0 meanwhile runs the "trailing update" G (a grid
// of several waves), then waits for queue 1's mark. Modes: no flush; a flush after each mark;
// the same with queue 1 of high priority (cl_khr_priority_hints, where listed); G cut into
// chunks. Printed: P's and G's spans from A's end (profiling), and the wall time.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef CL_QUEUE_PRIORITY_KHR
#define CL_QUEUE_PRIORITY_KHR 0x1096
#define CL_QUEUE_PRIORITY_HIGH_KHR (1 << 0)
#endif
static const char* src =
    "__kernel void spin(__global float* o, uint n) { float x = get_global_id(0) * 1e-9f;\n"
    " for (uint i = 0; i < n; ++i) x = x * 0.9999999f + 1e-7f; if (x == 12345.f) o[get_global_id(0) & 1023] = x; }\n";
static double now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
#define CHECK(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { printf("%s: %d (line %d)\n", #x, e_, __LINE__); exit(1); } } while (0)
static cl_ulong t_start(cl_event e) { cl_ulong v; CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 8, &v, NULL)); return v; }
static cl_ulong t_end(cl_event e) { cl_ulong v; CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &v, NULL)); return v; }

static cl_kernel k;
static cl_uint n_g, n_p;
static size_t g_groups;
static void spin(cl_command_queue q, size_t groups, cl_uint n, cl_event* ev) {
  size_t g = groups * 256, l = 256;
  CHECK(clSetKernelArg(k, 1, sizeof n, &n));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, ev));
}

// mode: 0 one queue; 1 two queues, no flush; 2 flush after marks; 3 flush, queue 1 high priority;
// 4 flush, G in 8 chunks; 5 flush, high priority, G in 8 chunks
static void run(cl_context c, cl_device_id d, int mode, int have_prio, int panel_kernels, int sm) {
  cl_int e;
  cl_queue_properties normal[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_queue_properties high[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_PRIORITY_KHR,
                                CL_QUEUE_PRIORITY_HIGH_KHR, 0};
  if ((mode == 3 || mode == 5) && !have_prio) return;
  cl_command_queue q0 = clCreateCommandQueueWithProperties(c, d, normal, &e);
  CHECK(e);
  cl_command_queue q1 = clCreateCommandQueueWithProperties(c, d, (mode == 3 || mode == 5) ? high : normal, &e);
  CHECK(e);
  if (mode == 0) q1 = q0;
  const int flush = mode >= 2, chunks = (mode == 4 || mode == 5) ? 8 : 1;
  for (int rep = 0; rep < 3; ++rep) {
    cl_event a, m0, m1, p[64], g[8];
    double w0 = now();
    spin(q0, 1, 1000, &a);
    CHECK(clEnqueueMarkerWithWaitList(q0, 0, NULL, &m0));
    if (flush) CHECK(clFlush(q0));
    if (q1 != q0) CHECK(clEnqueueBarrierWithWaitList(q1, 1, &m0, NULL));
    for (int i = 0; i < panel_kernels; ++i) spin(q1, sm, n_p, &p[i]);
    CHECK(clEnqueueMarkerWithWaitList(q1, 0, NULL, &m1));
    if (flush) CHECK(clFlush(q1));
    for (int i = 0; i < chunks; ++i) spin(q0, g_groups / chunks, n_g, &g[i]);
    if (q1 != q0) CHECK(clEnqueueBarrierWithWaitList(q0, 1, &m1, NULL));
    CHECK(clFinish(q0));
    CHECK(clFinish(q1));
    double w1 = now();
    const cl_ulong base = t_end(a);
    printf("  mode %d rep %d: wall %.2f ms; P %.2f-%.2f ms, G %.2f-%.2f ms\n", mode, rep, 1e3 * (w1 - w0),
           (t_start(p[0]) - base) * 1e-6, (t_end(p[panel_kernels - 1]) - base) * 1e-6, (t_start(g[0]) - base) * 1e-6,
           (t_end(g[chunks - 1]) - base) * 1e-6);
    clReleaseEvent(a); clReleaseEvent(m0); clReleaseEvent(m1);
    for (int i = 0; i < panel_kernels; ++i) clReleaseEvent(p[i]);
    for (int i = 0; i < chunks; ++i) clReleaseEvent(g[i]);
  }
  clReleaseCommandQueue(q0);
  if (q1 != q0) clReleaseCommandQueue(q1);
}

int main(void) {
  cl_platform_id ps[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, ps, &np);
  for (cl_uint i = 0; i < np; ++i) {
    char name[256];
    clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strstr(name, "NVIDIA")) continue;
    cl_device_id d;
    CHECK(clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &d, NULL));
    static char ext[16384];
    CHECK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL));
    printf("extensions: %s\n", ext);
    const int have_prio = strstr(ext, "cl_khr_priority_hints") != NULL;
    printf("cl_khr_priority_hints: %s\n", have_prio ? "yes" : "no");
    cl_uint cus;
    CHECK(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
    cl_int e;
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    CHECK(e);
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    CHECK(clBuildProgram(p, 1, &d, "", NULL, NULL));
    cl_mem o = clCreateBuffer(c, CL_MEM_READ_WRITE, 4096, NULL, &e);
    k = clCreateKernel(p, "spin", &e);
    CHECK(clSetKernelArg(k, 0, sizeof o, &o));
    // G: 4 waves of 8 groups of 256 per SM; P: 16 kernels of one group per SM.
    g_groups = (size_t)cus * 8 * 4;
    n_g = 100000;
    n_p = 50000;
    // Alone, for scale.
    cl_queue_properties normal[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(c, d, normal, &e);
    for (int rep = 0; rep < 2; ++rep) {
      cl_event eg, ep;
      spin(q, g_groups, n_g, &eg);
      spin(q, cus, n_p, &ep);
      CHECK(clFinish(q));
      printf("alone: G %.2f ms, one P kernel %.3f ms\n", (t_end(eg) - t_start(eg)) * 1e-6, (t_end(ep) - t_start(ep)) * 1e-6);
    }
    clReleaseCommandQueue(q);
    for (int mode = 0; mode <= 5; ++mode) run(c, d, mode, have_prio, 16, (int)cus);
    return 0;
  }
  printf("no NVIDIA platform\n");
  return 1;
}
