/**
 * @file mm_fault.h
 * @brief A fault in the job's shared memory becomes a one-line error, not a bare SIGBUS.
 */
#ifndef MM_FAULT_H
#define MM_FAULT_H

/**
 * @brief Catch SIGBUS on the pages of the job's segments (this rank's and its host peers'
 * heaps and static data): say which page of which PE could not be provided and end the job.
 * A SIGBUS elsewhere goes to the disposition there was before. Call once the segments are
 * mapped (init).
 */
void mm_fault_init(void);

#endif /* MM_FAULT_H */
