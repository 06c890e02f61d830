"""Benchmarks: `meshmem bench` (osu: the OSU-style programs of bench/ against their OpenMPI
twins; pybench: the bindings against mpi4py; ucx_floor: UCX's own floor between hosts) and the
measured validation of the model (measured: the benchmarks on a virtual cluster, their figures
handed to meshmem.model to compare with its predictions)."""
