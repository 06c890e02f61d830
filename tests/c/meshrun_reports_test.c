/*
 * meshrun_reports (tools/meshrun_reports.h): what mpirun and the ranks report is read, and
 * what meshrun's own line replaces is kept back, the rest passed through.
 */
#include "meshrun_reports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stdout, "meshrun_reports_test: line %d: %s\n", __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* feed mpirun's lines (one string, '\n' between them); what got written to stderr */
static const char *mpirun_says(meshrun_reports_t *r, const char *text)
{
    static char got[8192];
    FILE *tmp = tmpfile();
    int saved = dup(STDERR_FILENO);
    fflush(stderr);
    dup2(fileno(tmp), STDERR_FILENO);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        meshrun_reports_mpirun_line(r, p, len);
        p += len + (nl != NULL);
    }
    meshrun_reports_end(r);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    size_t n = (size_t)ftell(tmp);
    rewind(tmp);
    got[fread(got, 1, n < sizeof(got) - 1 ? n : sizeof(got) - 1, tmp)] = '\0';
    fclose(tmp);
    return got;
}

static bool rank_says(meshrun_reports_t *r, int rank, const char *line)
{
    return meshrun_reports_rank_line(r, rank, line, strlen(line));
}

#define RULE "--------------------------------------------------------------------------\n"

int main(void)
{
    unsetenv("MESHMEM_DEBUG");
    unsetenv("UCX_LOG_LEVEL");
    meshrun_reports_t r;

    /* a rank's exit(3): both of mpirun's blocks are kept back, the report read */
    meshrun_reports_init(&r, 4);
    const char *out = mpirun_says(
        &r, RULE "Primary job  terminated normally, but 1 process returned\n"
                 "a non-zero exit code. Per user-direction, the job has been aborted.\n" RULE RULE
                 "mpirun detected that one or more processes exited with non-zero status, thus "
                 "causing\nthe job to be terminated. The first process to do so was:\n\n"
                 "  Process name: [[12341,1],1]\n  Exit code:    3\n" RULE);
    EXPECT(strcmp(out, "") == 0);
    EXPECT(r.kind == MESHRUN_EV_EXIT && r.rank == 1 && r.code == 3);
    meshrun_reports_fini(&r);

    /* a block meshrun does not know passes whole; so does a line of mpirun's of its own */
    meshrun_reports_init(&r, 2);
    out = mpirun_says(&r, RULE "mpirun was unable to launch the specified application\n" RULE
                               "a line of its own\n");
    EXPECT(strcmp(out, RULE "mpirun was unable to launch the specified application\n" RULE
                            "a line of its own\n") == 0);
    EXPECT(r.kind == MESHRUN_EV_NONE);
    meshrun_reports_fini(&r);

    /* --timeout: the block and the job's state are kept back, the running ranks read */
    meshrun_reports_init(&r, 2);
    out = mpirun_says(&r, RULE "The user-provided time limit for job execution has been "
                               "reached:\n\n  Timeout: 2 seconds\n" RULE
                               "DATA FOR JOB: [18020,1]\n\tNum apps: 1\n\n\tProcs:\n"
                               "\t\tRank: 0\tNode: vhost0\tPID: 10949\tState: RUNNING\tExitCode 0\n"
                               "\t\tRank: 1\tNode: vhost1\tPID: 10948\tState: RUNNING\tExitCode 0\n"
                               "\n");
    EXPECT(strcmp(out, "") == 0);
    EXPECT(r.timed_out && strcmp(r.running, "rank 0 on vhost0, rank 1 on vhost1") == 0);
    meshrun_reports_fini(&r);

    /* the ranks: lost connections and UCX's errors kept back, the rank that died found even
     * when a rank the job's end killed is reported lost first; a fatal error of a rank's own
     * passes */
    meshrun_reports_init(&r, 4);
    EXPECT(!rank_says(&r, 0,
                      "meshmem[0] error: lost the connection to rank 2 (host vhost1): "
                      "Connection reset by remote peer; ending the job"));
    EXPECT(!rank_says(&r, 3,
                      "meshmem[3] error: lost the connection to rank 1 (host vhost0): "
                      "Endpoint timeout; ending the job"));
    EXPECT(!rank_says(&r, 2,
                      "meshmem[2] error: lost the connection to rank 1 (host vhost0): "
                      "Endpoint timeout; ending the job"));
    EXPECT(!rank_says(&r, 3,
                      "[1700000000.123456] [vhost1:4242:0]           sock.c:325  UCX  "
                      "ERROR connect(fd=37, dest_addr=198.18.0.10:4711) failed: "
                      "Connection refused"));
    EXPECT(!rank_says(&r, 2,
                      "meshmem[2] info: shmem_global_exit(7) on rank 2: ending the job "
                      "with status 7"));
    EXPECT(rank_says(&r, 0, "meshmem[0] error: meshmem_put: PE argument (4) is invalid"));
    /* the same error from another rank (each rank detects it): said once */
    EXPECT(!rank_says(&r, 3, "meshmem[3] error: meshmem_put: PE argument (4) is invalid"));
    EXPECT(rank_says(&r, 3, "meshmem[3] error: another error"));
    EXPECT(rank_says(&r, 1, "any other line"));
    EXPECT(meshrun_reports_lost_rank(&r) == 1);
    EXPECT(r.fatal_rank == 0 && r.exit_call_rank == 2 && r.exit_call_status == 7);
    EXPECT(strcmp(r.lost_why, "Connection reset by remote peer") == 0);
    meshrun_reports_fini(&r);

    /* a peer that failed inside UCX while handling the dead rank's connection, reported by
     * mpirun first: its assertion and backtrace kept back, the rank its peers lost named */
    meshrun_reports_init(&r, 4);
    EXPECT(!rank_says(&r, 2,
                      "meshmem[2] error: lost the connection to rank 1 (host vhost0): "
                      "Endpoint timeout; ending the job"));
    EXPECT(!rank_says(&r, 3,
                      "[vhost1:10294:0:10294]   wireup_ep.c:241  Assertion "
                      "`wireup_ep->pending_count == 0' failed"));
    EXPECT(!rank_says(&r, 3, "==== backtrace (tid:  10294) ===="));
    EXPECT(!rank_says(&r, 3, " 0  /lib/x86_64-linux-gnu/libucs.so.0(ucs_handle_error+0x2dc)"));
    EXPECT(!rank_says(&r, 3, "================================="));
    EXPECT(rank_says(&r, 3, "a line after it"));
    out = mpirun_says(&r, RULE "mpirun noticed that process rank 3 with PID 10294 on node "
                               "vhost1 exited on signal 6 (Aborted).\n" RULE);
    EXPECT(strcmp(out, "") == 0);
    EXPECT(r.kind == MESHRUN_EV_SIGNAL && r.rank == 3 && meshrun_reports_cause(&r) == 1);
    meshrun_reports_fini(&r);

    /* MESHMEM_DEBUG=1 keeps nothing back */
    setenv("MESHMEM_DEBUG", "1", 1);
    meshrun_reports_init(&r, 2);
    EXPECT(rank_says(&r, 0, "meshmem[0] error: lost the connection to rank 1 (host h): x; y"));
    out = mpirun_says(&r, RULE "  Process name: [[1,1],1]\n  Exit code:    3\n" RULE);
    EXPECT(strstr(out, "Exit code:    3") != NULL);
    meshrun_reports_fini(&r);

    if (failures == 0)
        printf("meshrun_reports_test: all cases pass\n");
    return failures ? 1 : 0;
}
