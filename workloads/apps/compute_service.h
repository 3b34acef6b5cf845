/*
 * The interface of the compute service (svc-compute), which app-service
 * calls over binder: COMPUTE {u64 ms} -> {u64 checksum}, the benchmarks'
 * unit of work done in another process.
 */
#ifndef PANLAB_COMPUTE_SERVICE_H
#define PANLAB_COMPUTE_SERVICE_H

#define COMPUTE_SERVICE_NAME "panlab.compute"
enum { COMPUTE_CALL = 1 };

#endif /* PANLAB_COMPUTE_SERVICE_H */
