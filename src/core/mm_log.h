/**
 * @file mm_log.h
 * @brief Levelled logging and the fatal-error path.
 *
 * Every line starts with "meshmem[rank]:" so that interleaved output of a job stays readable
 * (before init, the rank meshrun gave the process). mm_fatal ends the job: it marks this rank
 * failed in the control block (so meshrun stops the others) and exits without running atexit
 * handlers (which would enter collective finalize).
 *
 * Errors name the routine the user called: an OpenSHMEM routine that makes a native call sets
 * mm_user_call around it, and the native call names itself with mm_call_name().
 */
#ifndef MM_LOG_H
#define MM_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum { MM_LOG_ERROR = 0, MM_LOG_WARN = 1, MM_LOG_INFO = 2, MM_LOG_DEBUG = 3 };
/** Or-ed into a level: print whatever MESHMEM_DEBUG says (a warning the user can act on). */
#define MM_LOG_ALWAYS 4

/** @brief Log one line at @p level (printf format). */
void mm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** @brief Log one error line naming the failing call, then end the job with status 1. */
void mm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/**
 * @brief mm_fatal for an error that every member of a collective may detect at once (counts
 * or allocation arguments that differ): the first rank to report an error prints its line, the
 * others end quietly once that line is out, so that the job prints the error once (where the
 * bootstrap can tell who is first: mm_boot_ops_t.claim_report).
 */
void mm_fatal_collective(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/** Where the bootstrap cannot claim the report (no claim_report: PMIx, across hosts), the
 * transport's claim, set once every rank can be reached (mm_tp_claim_report): true for the rank
 * that reports; NULL before and after (every rank then reports). */
extern bool (*mm_report_claim)(void);

/** @brief End this rank quietly, once the job is ending (2 s at most): another rank reported
 * the error that ends it (mm_fatal_collective's ranks that do not report). */
void mm_fatal_reported(void) __attribute__((noreturn));

/** The OpenSHMEM routine this thread is in while it makes a native call (NULL otherwise). */
/* initial-exec: every native collective reads it on entry, and the default model for a shared
 * library's thread-local variable is a call to __tls_get_addr per access */
extern _Thread_local const char *mm_user_call __attribute__((tls_model("initial-exec")));

/** @brief The name an error of native call @p native gives: the user's routine when there is one. */
static inline const char *mm_call_name(const char *native)
{
    return mm_user_call ? mm_user_call : native;
}

#define mm_error(...) mm_log(MM_LOG_ERROR, __VA_ARGS__)
#define mm_warn(...)  mm_log(MM_LOG_WARN, __VA_ARGS__)
#define mm_info(...)  mm_log(MM_LOG_INFO, __VA_ARGS__)
#define mm_debug(...) mm_log(MM_LOG_DEBUG, __VA_ARGS__)

#endif /* MM_LOG_H */
