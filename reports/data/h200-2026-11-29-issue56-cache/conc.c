// Whether NVIDIA's OpenCL runs kernels of two in-order queues at once: two single-work-group
// spin kernels, on one queue and then on two; their profiled start/end and the wall time.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static const char* src = "__kernel void spin(__global float* o, uint n) { float x = get_global_id(0) * 1e-9f;\n"
  " for (uint i = 0; i < n; ++i) x = x * 0.9999999f + 1e-7f; o[get_global_id(0)] = x; }\n";
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void) {
  cl_platform_id ps[8]; cl_uint np = 0; clGetPlatformIDs(8, ps, &np);
  for (cl_uint i = 0; i < np; ++i) {
    char name[256]; clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strstr(name, "NVIDIA")) continue;
    cl_device_id d; clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &d, NULL);
    cl_int e; cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e); clBuildProgram(p, 1, &d, "", NULL, NULL);
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q[2] = {clCreateCommandQueueWithProperties(c, d, props, &e), clCreateCommandQueueWithProperties(c, d, props, &e)};
    cl_mem o = clCreateBuffer(c, CL_MEM_READ_WRITE, 4096, NULL, &e);
    cl_kernel k = clCreateKernel(p, "spin", &e);
    cl_uint n = 20000000; clSetKernelArg(k, 0, sizeof o, &o); clSetKernelArg(k, 1, sizeof n, &n);
    size_t g = 32, l = 32;
    for (int rep = 0; rep < 3; ++rep)
      for (int two = 0; two < 2; ++two) {
        cl_event ev[2]; double t0 = now();
        for (int j = 0; j < 2; ++j) clEnqueueNDRangeKernel(q[two ? j : 0], k, 1, NULL, &g, &l, 0, NULL, &ev[j]);
        clFlush(q[0]); clFlush(q[1]); clFinish(q[0]); clFinish(q[1]);
        double t1 = now(); cl_ulong s[2], f[2];
        for (int j = 0; j < 2; ++j) { clGetEventProfilingInfo(ev[j], CL_PROFILING_COMMAND_START, 8, &s[j], NULL); clGetEventProfilingInfo(ev[j], CL_PROFILING_COMMAND_END, 8, &f[j], NULL); }
        printf("%s queue%s: wall %.1f ms; A %.1f-%.1f ms, B %.1f-%.1f ms\n", two ? "two" : "one", two ? "s" : "", 1e3 * (t1 - t0),
               0.0, (f[0] - s[0]) * 1e-6, (s[1] - s[0]) * 1e-6, (f[1] - s[0]) * 1e-6);
      }
    return 0;
  }
  return 1;
}
