"""Device side: the CUDA limits the cache model relies on, as the driver reports them.

    python3 benchmarks/hw/l2_fetch_limit.py > $OUT/limits.txt

cudaLimitMaxL2FetchGranularity (enum value 5): "a value between 0 and 128 that indicates the
maximum fetch granularity of L2 (in Bytes). This is a hint" (CUDA runtime API, cudaLimit).
"""

import ctypes

cu = ctypes.CDLL("libcuda.so.1")
assert cu.cuInit(0) == 0
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert cu.cuCtxSetCurrent(ctx) == 0
name = ctypes.create_string_buffer(128)
cu.cuDeviceGetName(name, 128, dev)
value = ctypes.c_size_t()
status = cu.cuCtxGetLimit(ctypes.byref(value), 5)  # CU_LIMIT_MAX_L2_FETCH_GRANULARITY
print(f"device: {name.value.decode()}")
print(f"CU_LIMIT_MAX_L2_FETCH_GRANULARITY: status {status}, value {value.value} bytes")
for attr, label in ((38, "L2 cache size (bytes)"), (16, "multiprocessors")):
    v = ctypes.c_int()
    cu.cuDeviceGetAttribute(ctypes.byref(v), attr, dev)
    print(f"{label}: {v.value}")
