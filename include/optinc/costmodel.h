/*
 * costmodel.h - the communication-cost model of paper.md section 7: how long
 * one training iteration takes with ring all-reduce or with OptINC.
 *
 * A server's link has bandwidth B and a per-message latency alpha; a
 * communication phase takes  messages * alpha + 8 * bytes_sent / B  (full
 * duplex: receiving overlaps sending).  The message and byte counts come from
 * the all-reduce emulation itself (optinc_ar_stats), so the model and the
 * counted traffic cannot disagree.  Compute takes
 * FLOPs / (peak * efficiency), and the ONN's optical delay t_onn is added to
 * OptINC's phase.
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

/* The iteration time of workload w with `samples` per server per iteration,
 * N servers and gradients sent as `bits`-bit words by both algorithms (a
 * like-for-like comparison: only the number of messages and bytes differs),
 * from the section 7 formulas: ring 2(N-1) messages of S/N; OptINC one
 * message of the block scales (4 bytes per OPTINC_AR_DEFAULT_BLOCK elements)
 * and one of S, plus t_onn. */
void optinc_cost_iteration(const optinc_costmodel *cm, const optinc_workload *w, double samples,
                           int servers, int bits, optinc_iteration *it);

#endif
