/*
 * Guest network setup. The guest has no init scripts for the network: a program that talks
 * over loopback (the content server, the network stress load) brings `lo` up itself.
 *
 * Ownership: nothing is allocated.
 */
#ifndef PANLAB_NET_H
#define PANLAB_NET_H

/* Brings the loopback interface up (idempotent). Returns 0 or -errno. */
int pl_net_loopback_up(void);

#endif /* PANLAB_NET_H */
