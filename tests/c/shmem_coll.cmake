# OpenSHMEM teams and collectives (src/shmem/shmem_team.c, shmem_coll*.c)
mm_rank_test(shmem_coll_types SOURCES shmem_coll_types.c RANKS 1 2 3 4 5 8 LABELS coll)
mm_rank_test(shmem_coll_teams SOURCES shmem_coll_teams.c RANKS 1 2 3 4 5 8 LABELS coll)
mm_rank_test(shmem_coll_aset SOURCES shmem_coll_aset.c RANKS 1 2 3 4 5 8 LABELS coll)
