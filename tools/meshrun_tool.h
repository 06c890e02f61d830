/**
 * @file meshrun_tool.h
 * @brief The helper programs meshrun runs: found next to it (the build's bin/), run to their
 * end with their standard output captured.
 */
#ifndef MESHRUN_TOOL_H
#define MESHRUN_TOOL_H

#include <stddef.h>

/**
 * @brief The path of program @p name in meshrun's own directory, into @p out.
 * @return 0, or -1 when it is not there or not executable.
 */
int meshrun_tool_path(const char *name, char *out, size_t size);

/**
 * @brief Run @p argv (argv[0] a path) to its end, in a process group of its own so that a
 * Ctrl-C meant for the job does not cut it short; its standard error passes through.
 * @param out receives its standard output (NUL-terminated, truncated to @p size - 1 bytes, one
 * trailing newline removed); NULL: the output passes through too.
 * @return its exit status, 128 + signal when a signal ended it, or 127 when it could not start.
 */
int meshrun_tool_run(const char *const *argv, char *out, size_t size);

#endif /* MESHRUN_TOOL_H */
