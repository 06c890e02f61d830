/**
 * @file mm_log.h
 * @brief Levelled logging and the fatal-error path.
 *
 * Every line starts with "meshmem[rank]:" so that interleaved output of a job stays readable.
 * mm_fatal ends the job: it marks this rank failed in the control block (so meshrun stops the
 * others) and exits without running atexit handlers (which would enter collective finalize).
 */
#ifndef MM_LOG_H
#define MM_LOG_H

#include <stdarg.h>

enum { MM_LOG_ERROR = 0, MM_LOG_WARN = 1, MM_LOG_INFO = 2, MM_LOG_DEBUG = 3 };

/** @brief Log one line at @p level (printf format). */
void mm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** @brief Log one error line naming the failing call, then end the job with status 1. */
void mm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define mm_error(...) mm_log(MM_LOG_ERROR, __VA_ARGS__)
#define mm_warn(...)  mm_log(MM_LOG_WARN, __VA_ARGS__)
#define mm_info(...)  mm_log(MM_LOG_INFO, __VA_ARGS__)
#define mm_debug(...) mm_log(MM_LOG_DEBUG, __VA_ARGS__)

#endif /* MM_LOG_H */
