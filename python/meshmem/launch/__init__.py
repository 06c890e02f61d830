"""Starting ranks: where the build and the installed runtime are (paths, tools: the console
scripts meshrun and meshcc), and the command lines that start a job on meshmem (meshrun) or on
OpenMPI (mpirun, oshrun: the twins, with their settings), on one host, virtual hosts or several
hosts (commands)."""
