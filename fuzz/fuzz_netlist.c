/*
 * fuzz_netlist.c - libFuzzer target: the PNL netlist reader
 * (optinc_netlist_parse), lexing through rebuilding the circuit, on
 * libFuzzer's bytes in memory, with the lowered limits of fuzz.h.  An input
 * may .include files by name, served from memory by the resolver below:
 * "p.inc" (a .param line) and "net.pnl.sp", the input itself (an include
 * cycle); any other name is missing.
 */
#include "optinc/netlist.h"
#include "fuzz.h"

static const char p_inc[] = ".param w=1.5\n";

typedef struct fz_input { const uint8_t *data; size_t size; } fz_input;

/* A copy of one of the two files, as optinc_blob_read would make it. */
static optinc_status resolve(void *ctx, const char *from, const char *rel, size_t max_bytes,
                             const char *what, optinc_blob *out, optinc_error *err)
{
    const fz_input *self = ctx;
    const char *data = NULL;
    size_t len = 0;
    (void)from;
    memset(out, 0, sizeof *out);
    if (!strcmp(rel, "p.inc"))
        data = p_inc, len = sizeof p_inc - 1;
    else if (!strcmp(rel, "net.pnl.sp"))
        data = (const char *)self->data, len = self->size;
    else
        return optinc_fail(err, OPTINC_EINPUT, rel, 0, 0, "cannot open %s '%s': no such file",
                           what, rel);
    if (len > max_bytes)
        return optinc_fail(err, OPTINC_EINPUT, rel, 0, 0, "%s '%s' is too large", what, rel);
    out->data = malloc(len + 1);
    if (!out->data)
        return optinc_fail(err, OPTINC_ERUN, rel, 0, 0, "out of memory");
    if (len)
        memcpy(out->data, data, len);
    out->data[len] = '\0';
    out->len = len;
    snprintf(out->name, sizeof out->name, "%s", rel);
    return OPTINC_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fz_file;      /* fuzz.h's file helper, for the targets that read files */
    fz_input self = {data, size};
    optinc_read_opts opts = {fz_limits(), resolve, &self};
    optinc_input in = {"net.pnl.sp", (const char *)data, size};
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_netlist_parse(&in, &opts, &c, &err) == OPTINC_OK)
        optinc_circuit_free(c);
    return 0;
}
