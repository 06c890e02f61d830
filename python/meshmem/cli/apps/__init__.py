"""The application commands (`meshmem sort`, average, fft, amt, shallow, gemm, conv): each an
AppCommand (command) that runs its program of apps/ (programs) against its baselines."""
