#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
typedef struct { _Atomic unsigned v[2]; } sh_t;
int main(int argc,char**argv){
  int c0=atoi(argv[1]),c1=atoi(argv[2]),mode=atoi(argv[3]),N=20000;
  sh_t*s=mmap(0,4096,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  pid_t p=fork();
  int me=p==0; pin(me?c1:c0);
  double t0=0;
  for(int i=0;i<N;i++){
    if(i==1000)t0=now();
    if(me==0){ atomic_store(&s->v[1],i+1); if(mode==1)syscall(SYS_futex,&s->v[1],FUTEX_WAKE,1,0,0,0);
      while(atomic_load(&s->v[0])!=(unsigned)i+1){ if(mode==1)syscall(SYS_futex,&s->v[0],FUTEX_WAIT,i,0,0,0); else if(mode==2)sched_yield();}
    } else {
      while(atomic_load(&s->v[1])!=(unsigned)i+1){ if(mode==1)syscall(SYS_futex,&s->v[1],FUTEX_WAIT,i,0,0,0); else if(mode==2)sched_yield();}
      atomic_store(&s->v[0],i+1); if(mode==1)syscall(SYS_futex,&s->v[0],FUTEX_WAKE,1,0,0,0);
    }
  }
  if(me==0){printf("cpus %d %d mode %s: half round trip %.2f us\n",c0,c1,mode==0?"spin":mode==1?"futex":"yield",(now()-t0)/(N-1000)/2); wait(0);}
  return 0;
}
