/* A libcuda.so.1 whose calls cost nothing (events read a clock that the n-th launch advances by 1 + n % 7,
   so each launch has a time of its own): launch_host_cost.py, and tests/runtime/test_native_ring.py,
   measures the Python side of the launch paths with it, on a machine without a GPU. Not a driver:
   "device" memory is host memory and copies are memcpy, enough for a CudaBackend to be made, prepare
   arguments, launch (nothing runs) and copy back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
typedef struct { float t; } ev;
float clock_ = 0; static long launches = 0;
/* a fault, for tests to set: waits return fail_code, and an event recorded at fail_after or later never completes */
int fail_code = 0; float fail_after = 0;
/* the last launch, for tests to read back (ctypes: c_uint.in_dll(lib, "last_grid"), ...) */
unsigned last_grid = 0, last_block = 0; void *last_stream = 0; void **last_params = 0; long launch_count = 0;
int cuInit(unsigned f) { return 0; }
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuEventCreate(void **e, unsigned flags) { *e = calloc(1, sizeof(ev)); return 0; }
int cuEventDestroy(void *e) { free(e); return 0; }
int cuEventRecord(void *e, void *s) { ((ev*)e)->t = clock_; return 0; }
int cuEventQuery(void *e) { return fail_code && ((ev*)e)->t >= fail_after ? fail_code : 0; }
int cuEventSynchronize(void *e) { return fail_code; }
int cuStreamSynchronize(void *s) { return 0; }
int cuEventElapsedTime(float *ms, void *a, void *b) { *ms = ((ev*)b)->t - ((ev*)a)->t; return 0; }
int cuLaunchKernel(void *f, unsigned g, unsigned a, unsigned b, unsigned bl, unsigned c, unsigned d, unsigned sh,
                   void *s, void **p, void **x) { if (g == 0) return 1; launches++; clock_ += 1.0f + (float)(launches % 7);
  last_grid = g; last_block = bl; last_stream = s; last_params = p; launch_count = launches; return 0; }
int cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void*)0xc0; return 0; }
int cuDevicePrimaryCtxRelease(int d) { return 0; }
int cuCtxSetCurrent(void *c) { return 0; }
int cuDeviceGetAttribute(int *v, int attrib, int d) { *v = 8; return 0; }  /* 8 of everything (SMs, blocks, ...) */
int cuDeviceGetName(char *name, int len, int d) { strncpy(name, "fake", len); return 0; }
int cuStreamCreate(void **s, unsigned flags) { *s = calloc(1, 8); return 0; }
int cuMemAlloc(uint64_t *p, size_t n) { *p = (uint64_t)(uintptr_t)calloc(1, n); return 0; }
int cuMemFree(uint64_t p) { free((void*)(uintptr_t)p); return 0; }
int cuMemcpyHtoDAsync(uint64_t d, const void *h, size_t n, void *s) { memcpy((void*)(uintptr_t)d, h, n); return 0; }
int cuMemcpyDtoHAsync(void *h, uint64_t d, size_t n, void *s) { memcpy(h, (void*)(uintptr_t)d, n); return 0; }
int cuMemsetD8(uint64_t d, unsigned char v, size_t n) { memset((void*)(uintptr_t)d, v, n); return 0; }
int cuModuleGetFunction(void **f, void *m, const char *name) { *f = m; return 0; }
int cuModuleUnload(void *m) { return 0; }
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status);
int cuGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags);
struct { const char *n; void *f; } table[] = {
  {"cuGetProcAddress", cuGetProcAddress_v2},
  {"cuInit", cuInit}, {"cuDriverGetVersion", cuDriverGetVersion}, {"cuEventCreate", cuEventCreate},
  {"cuEventDestroy", cuEventDestroy}, {"cuEventDestroy_v2", cuEventDestroy}, {"cuEventRecord", cuEventRecord},
  {"cuEventQuery", cuEventQuery}, {"cuEventSynchronize", cuEventSynchronize},
  {"cuStreamSynchronize", cuStreamSynchronize}, {"cuEventElapsedTime", cuEventElapsedTime},
  {"cuEventElapsedTime_v2", cuEventElapsedTime}, {"cuLaunchKernel", cuLaunchKernel},
  {"cuDeviceGet", cuDeviceGet}, {"cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain},
  {"cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease}, {"cuDevicePrimaryCtxRelease_v2", cuDevicePrimaryCtxRelease},
  {"cuCtxSetCurrent", cuCtxSetCurrent}, {"cuDeviceGetAttribute", cuDeviceGetAttribute},
  {"cuDeviceGetName", cuDeviceGetName}, {"cuStreamCreate", cuStreamCreate},
  {"cuMemAlloc", cuMemAlloc}, {"cuMemAlloc_v2", cuMemAlloc}, {"cuMemFree", cuMemFree}, {"cuMemFree_v2", cuMemFree},
  {"cuMemcpyHtoDAsync", cuMemcpyHtoDAsync}, {"cuMemcpyHtoDAsync_v2", cuMemcpyHtoDAsync},
  {"cuMemcpyDtoHAsync", cuMemcpyDtoHAsync}, {"cuMemcpyDtoHAsync_v2", cuMemcpyDtoHAsync},
  {"cuMemsetD8", cuMemsetD8}, {"cuMemsetD8_v2", cuMemsetD8}, {"cuModuleGetFunction", cuModuleGetFunction}, {"cuModuleUnload", cuModuleUnload}, {0, 0}};
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
  for (int i = 0; table[i].n; i++) if (!strcmp(table[i].n, sym)) { *pfn = table[i].f; if (status) *status = 0; return 0; }
  *pfn = 0; if (status) *status = 1; return 0; }
int cuGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags) { return cuGetProcAddress_v2(sym, pfn, ver, flags, 0); }
