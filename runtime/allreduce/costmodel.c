/*
 * costmodel.c - iteration time of ring all-reduce vs OptINC (see costmodel.h).
 *
 * Workloads.  The paper reports ResNet50 on CIFAR-100 and a LLaMA-based model
 * (8 layers, hidden 384, 8 heads) but not their batch sizes, sequence length
 * or vocabulary, so the numbers below are stated assumptions:
 *   ResNet50, CIFAR variant (3x3 stem, no max-pool, 100 classes):
 *     23,712,932 parameters; 1.30 GMAC forward per 32x32 image, so
 *     3 x 2 x 1.30e9 = 7.8 GFLOP per image for forward + backward;
 *   LLaMA-based: per layer 4 d^2 attention + 3 d 1024 SwiGLU MLP + 2 d norms
 *     = 1,770,240 for d = 384; 8 layers, a 32,000-token vocabulary with
 *     untied input embedding and output head, and the final norm:
 *     38,738,688 parameters; training FLOPs per token
 *     6 (14,161,920 + 12,288,000) + 6 x 2 x 8 x 512 x 384 (attention over a
 *     512-token context) = 1.776e8.
 */
#include <math.h>
#include "optinc/costmodel.h"

void optinc_costmodel_defaults(optinc_costmodel *cm)
{
    cm->link_bps = 800e9;
    cm->latency_s = 1e-6;
    cm->peak_flops = 60e12;
    cm->efficiency = 0.6;
    cm->t_onn_s = 10e-9;
}

double optinc_cost_comm_time(const optinc_costmodel *cm, const optinc_ar_stats *stats, int s)
{
    return (double)stats->messages[s] * cm->latency_s +
           8.0 * (double)stats->bytes_sent[s] / cm->link_bps;
}

const optinc_workload optinc_workload_resnet50 = {
    "ResNet50 (CIFAR-100)", 23712932.0, 7.8e9, "image"};
const optinc_workload optinc_workload_llama = {
    "LLaMA-based (8x384)", 38738688.0, 6.0 * (14161920.0 + 12288000.0) + 6.0 * 2 * 8 * 512 * 384,
    "token"};

double optinc_cost_allreduce(const optinc_costmodel *cm, const optinc_ar_algorithm *alg,
                             double params, int servers, int bits)
{
    double N = servers, S = params * bits;   /* bits per server */
    double messages = 1.0, share = 1.0, scales = 0.0, optical = 0.0;
    if (alg->network == OPTINC_AR_NET_RING) {
        messages = 2.0 * (N - 1.0);
        share = 2.0 * (N - 1.0) / N;
    }
    if (alg->flags & OPTINC_AR_QUANTIZES) {
        messages += 1.0;
        scales = ceil(params / OPTINC_AR_DEFAULT_BLOCK) * 32.0;
    }
    if (alg->flags & OPTINC_AR_ONN) {    /* once per level of 4-server units */
        int levels = 1;
        for (double slots = 4.0; slots < N; slots *= 4.0)
            levels++;
        optical = levels * cm->t_onn_s;
    }
    return messages * cm->latency_s + (share * S + scales) / cm->link_bps + optical;
}

void optinc_cost_iteration(const optinc_costmodel *cm, const optinc_workload *w, double samples,
                           int servers, int bits, optinc_iteration *it)
{
    it->compute_s = samples * w->flops_per_sample / (cm->peak_flops * cm->efficiency);
    it->ring_s = optinc_cost_allreduce(cm, optinc_ar_find("ring"), w->params, servers, bits);
    it->optinc_s = optinc_cost_allreduce(cm, optinc_ar_find("optinc"), w->params, servers, bits);
    it->saving = (it->ring_s - it->optinc_s) / (it->compute_s + it->ring_s);
}
