#!/bin/bash
# floor.sh TEST C0 C1 [SIZE] [extra perftest args]: ucx_perftest between 2 virtual hosts
T=$1; C0=$2; C1=$3; S=${4:-8}; shift 4; X="$*"
export UCX_TLS=tcp,sm,self UCX_NET_DEVICES=vheth0
/work/wt/i31/build/bin/meshrun-vhosts run 2 -- /usr/bin/mpirun --allow-run-as-root -x UCX_NET_DEVICES -x UCX_TLS --bind-to none \
 -n 1 --host vhost0 ucx_perftest -f -t $T -s $S -n 20000 -w 2000 -p 13337 -c $C0 $X : \
 -n 1 --host vhost1 sh -c "for i in \$(seq 100); do ucx_perftest -f -t $T -s $S -n 20000 -w 2000 -p 13337 -c $C1 $X 198.18.0.10 && exit 0; sleep 0.1; done; exit 1" 2>&1 | tail -1
