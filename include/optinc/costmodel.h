/*
 * costmodel.h - the communication-cost model of the OptINC paper (arXiv
 * 2603.28290): how long one training iteration takes with ring all-reduce or
 * with OptINC.
 *
 * A server's link has bandwidth B and a per-message latency alpha; a
 * communication phase takes  messages * alpha + 8 * bytes_sent / B  (full
 * duplex: receiving overlaps sending).  The message and byte counts come from
 * the all-reduce emulation itself (optinc_ar_stats), so the model and the
 * counted traffic cannot disagree.  Compute takes
 * FLOPs / (peak * efficiency), and the ONN's optical delay t_onn is added to
 * the phase of an algorithm that aggregates in the optical unit.
 */
#ifndef OPTINC_COSTMODEL_H
#define OPTINC_COSTMODEL_H

#include <stdint.h>
#include "optinc/allreduce.h"

typedef struct optinc_costmodel {
    double link_bps;      /* per-server link bandwidth, bits/s (paper: 800 Gb/s) */
    double latency_s;     /* per message (alpha) */
    double peak_flops;    /* per server (paper: H100 at 60 TFLOP/s) */
    double efficiency;    /* utilization (paper: 0.6) */
    double t_onn_s;       /* optical delay through P, the ONN and T */
} optinc_costmodel;

/* The paper's assumptions: 800 Gb/s, 60 TFLOP/s at 0.6; alpha 1 us and
 * t_onn 10 ns are ours (the paper gives neither). */
void optinc_costmodel_defaults(optinc_costmodel *cm);

/* Modelled time of the traffic counted for server s in stats, in seconds
 * (the optical delay, nanoseconds per pass, is left out). */
double optinc_cost_comm_time(const optinc_costmodel *cm, const optinc_ar_stats *stats, int s);

/* A workload for the latency model: gradient size and compute per iteration. */
typedef struct optinc_workload {
    const char *name;
    double params;             /* gradient elements */
    double flops_per_sample;   /* training FLOPs per sample (or token) */
    const char *sample;        /* "image", "token" */
} optinc_workload;

/* ResNet50 (CIFAR variant) and the paper's LLaMA-based model (8 layers,
 * hidden 384, 8 heads); see the .c file for how the numbers are derived. */
extern const optinc_workload optinc_workload_resnet50;
extern const optinc_workload optinc_workload_llama;

typedef struct optinc_iteration {
    double compute_s, ring_s, optinc_s;   /* phases */
    double saving;                        /* (T_ring - T_opt) / (compute + T_ring) */
} optinc_iteration;

/* Modelled time of one all-reduce by algorithm alg of `params` words of
 * `bits` bits on N servers, from its table entry: on a ring, 2(N-1) messages
 * of params/N words; on a star, one message of the words, after one of the
 * block scales (4 bytes per OPTINC_AR_DEFAULT_BLOCK elements) when it
 * quantizes; plus t_onn when it aggregates in the optical unit, once per
 * level of the cascade of 4-server units that N servers take
 * (optinc-onn(7)). */
double optinc_cost_allreduce(const optinc_costmodel *cm, const optinc_ar_algorithm *alg,
                             double params, int servers, int bits);
/* The iteration time of workload w with `samples` per server per iteration,
 * N servers and gradients sent as `bits`-bit words by both ring and optinc
 * (a like-for-like comparison: only the number of messages and bytes
 * differs), each from optinc_cost_allreduce(). */
void optinc_cost_iteration(const optinc_costmodel *cm, const optinc_workload *w, double samples,
                           int servers, int bits, optinc_iteration *it);

#endif
