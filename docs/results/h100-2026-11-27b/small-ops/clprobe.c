// Scratch: where NVIDIA's OpenCL marker intervals spend their time.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CK(x) do { cl_int e_ = (x); if (e_) { fprintf(stderr, "%s: %d (line %d)\n", #x, e_, __LINE__); exit(1);} } while (0)
static const char *src =
"__kernel void copy1(__global const uint* a, __global uint* b) { if (get_global_id(0) == 0) b[0] = a[0]; }\n"
"__kernel void part(__global const float4* x, __global float* out, uint n4) {\n"
"  __local float s[256]; uint l = get_local_id(0); float acc = 0.0f;\n"
"  for (uint i = get_global_id(0); i < n4; i += get_global_size(0)) { float4 v = x[i]; acc += v.x + v.y + v.z + v.w; }\n"
"  s[l] = acc; barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (uint w = 128; w > 0; w >>= 1) { if (l < w) s[l] += s[l + w]; barrier(CLK_LOCAL_MEM_FENCE); }\n"
"  if (l == 0) out[get_group_id(0)] = s[0]; }\n"
"__kernel void pad(__global float* x, uint n, uint reps) { uint i = get_global_id(0); float v = x[i % n];\n"
"  for (uint r = 0; r < reps; r++) v = v * 1.0000001f + 0.5f; if (v == 12345.0f) x[0] = v; }\n";
static cl_ulong t(cl_event e, cl_profiling_info w) { cl_ulong v = 0; CK(clGetEventProfilingInfo(e, w, sizeof v, &v, NULL)); return v; }
static int cmp(const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
#define N 300
static double med(double *v) { qsort(v, N, sizeof(double), cmp); return v[N/2]; }
int main(void) {
  cl_platform_id ps[8]; cl_uint np; CK(clGetPlatformIDs(8, ps, &np));
  cl_platform_id p = 0; for (cl_uint i = 0; i < np; i++) { char n[256]; clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, 256, n, NULL); printf("platform %s\n", n); if (strstr(n, "NVIDIA")) p = ps[i]; }
  if (!p) p = ps[0];
  cl_device_id d; CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
  cl_int err; cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err); CK(err);
  cl_command_queue q = clCreateCommandQueue(c, d, CL_QUEUE_PROFILING_ENABLE, &err); CK(err);
  cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &err); CK(err);
  CK(clBuildProgram(pr, 1, &d, "", NULL, NULL));
  cl_kernel kc = clCreateKernel(pr, "copy1", &err); CK(err);
  cl_kernel ks = clCreateKernel(pr, "part", &err); CK(err);
  cl_kernel kp = clCreateKernel(pr, "pad", &err); CK(err);
  size_t n = 1 << 20; cl_uint n4 = n / 4;
  cl_mem x = clCreateBuffer(c, CL_MEM_READ_WRITE, n * 4, NULL, &err); CK(err);
  cl_mem o = clCreateBuffer(c, CL_MEM_READ_WRITE, 1 << 20, NULL, &err); CK(err);
  float zero = 1.0f; CK(clEnqueueFillBuffer(q, x, &zero, 4, 0, n * 4, 0, NULL, NULL));
  CK(clSetKernelArg(kc, 0, sizeof x, &x)); CK(clSetKernelArg(kc, 1, sizeof o, &o));
  CK(clSetKernelArg(ks, 0, sizeof x, &x)); CK(clSetKernelArg(ks, 1, sizeof o, &o)); CK(clSetKernelArg(ks, 2, 4, &n4));
  cl_uint reps = 20000; CK(clSetKernelArg(kp, 0, sizeof x, &x)); CK(clSetKernelArg(kp, 1, 4, &n4)); CK(clSetKernelArg(kp, 2, 4, &reps));
  size_t g1 = 64, l1 = 64, gs = 264 * 256, ls = 256, gp = 132 * 1024, lp = 256;
  CK(clFinish(q));
  for (int kind = 0; kind < 2; kind++) {
    cl_kernel k = kind ? ks : kc; size_t *g = kind ? &gs : &g1, *l = kind ? &ls : &l1;
    const char *name = kind ? "sum 2^20 (partials)" : "copy 1 word";
    for (int w = 0; w < 200; w++) CK(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 0, NULL, NULL));
    CK(clFinish(q));
    double A[N], As[N], B[N], Bk[N], Bpre[N], Bpost[N], C[N], D[N], Dk[N], Dq[N], Dpad[N];
    for (int i = 0; i < N; i++) {
      cl_event m1, m2, e;
      // A: markers around a launch without an event (the backend's way).
      CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m1)); CK(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 0, NULL, NULL)); CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m2)); CK(clFinish(q));
      A[i] = (t(m2, CL_PROFILING_COMMAND_END) - t(m1, CL_PROFILING_COMMAND_END)) / 1e3;
      As[i] = (t(m2, CL_PROFILING_COMMAND_START) - t(m1, CL_PROFILING_COMMAND_START)) / 1e3;
      clReleaseEvent(m1); clReleaseEvent(m2);
      // B: markers around a launch with its own event.
      CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m1)); CK(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 0, NULL, &e)); CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m2)); CK(clFinish(q));
      B[i] = (t(m2, CL_PROFILING_COMMAND_END) - t(m1, CL_PROFILING_COMMAND_END)) / 1e3;
      Bk[i] = (t(e, CL_PROFILING_COMMAND_END) - t(e, CL_PROFILING_COMMAND_START)) / 1e3;
      Bpre[i] = ((double)t(e, CL_PROFILING_COMMAND_START) - (double)t(m1, CL_PROFILING_COMMAND_END)) / 1e3;
      Bpost[i] = ((double)t(m2, CL_PROFILING_COMMAND_END) - (double)t(e, CL_PROFILING_COMMAND_END)) / 1e3;
      clReleaseEvent(m1); clReleaseEvent(m2); clReleaseEvent(e);
      // C: the launch's event alone.
      CK(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 0, NULL, &e)); CK(clFinish(q));
      C[i] = (t(e, CL_PROFILING_COMMAND_END) - t(e, CL_PROFILING_COMMAND_START)) / 1e3;
      clReleaseEvent(e);
      // D: behind a long pad kernel (everything enqueued before the GPU gets there).
      cl_event pe;
      CK(clEnqueueNDRangeKernel(q, kp, 1, NULL, &gp, &lp, 0, NULL, &pe));
      CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m1)); CK(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 0, NULL, &e)); CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m2)); CK(clFinish(q));
      D[i] = (t(m2, CL_PROFILING_COMMAND_END) - t(m1, CL_PROFILING_COMMAND_END)) / 1e3;
      Dk[i] = (t(e, CL_PROFILING_COMMAND_END) - t(e, CL_PROFILING_COMMAND_START)) / 1e3;
      Dq[i] = ((double)t(e, CL_PROFILING_COMMAND_START) - (double)t(m1, CL_PROFILING_COMMAND_END)) / 1e3;
      Dpad[i] = (t(pe, CL_PROFILING_COMMAND_END) - t(pe, CL_PROFILING_COMMAND_START)) / 1e3;
      clReleaseEvent(m1); clReleaseEvent(m2); clReleaseEvent(e); clReleaseEvent(pe);
    }
    printf("%-20s A markers END-END %6.1f  START-START %6.1f | B markers %6.1f kernel %6.1f m1.end->k.start %6.1f k.end->m2.end %6.1f | C kernel event %6.1f | D behind pad: markers %6.1f kernel %6.1f m1.end->k.start %6.1f (pad %6.1f)\n",
      name, med(A), med(As), med(B), med(Bk), med(Bpre), med(Bpost), med(C), med(D), med(Dk), med(Dq), med(Dpad));
  }
  return 0;
}
