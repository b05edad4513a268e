"""Host-side pieces every backend shares: the kernel cache, loop plans, reduction and order-statistic
plans, window arithmetic and row bodies. Nothing here launches a kernel or names a backend; the
backends (kernels/cpu, kernels/cuda) import from here and never from each other."""
