/* gorc-prof: decoding perf_event records (include/gorc/perf-sample.h).  */
#ifndef GORC_PROF_PERF_H
#define GORC_PROF_PERF_H

#include <stddef.h>
#include <stdint.h>
#include "gorc/perf-sample.h"

/* The sample_type bits gorc-prof can decode (others make a layout
   unusable: their fields have no fixed place).  */
int gorc_perf_layout_usable(const struct gorc_perf_layout *l, const char **why);

/* Decode the PERF_RECORD_SAMPLE body REC (LEN bytes, header included).
   0, or -1 when the record is shorter than its layout says.  */
int gorc_perf_decode_sample(const struct gorc_perf_layout *l, const uint8_t *rec, size_t len,
                            struct gorc_perf_sample *s);

/* The time of the PERF_RECORD_SAMPLE REC (0 when it has none): read
   without the rest of the record (its stack copy is not touched).  */
uint64_t gorc_perf_sample_time(const struct gorc_perf_layout *l, const uint8_t *rec, size_t len);

/* The pid, tid and time sample_id_all appended to the non-sample record
   REC of LEN bytes (zeroes when the layout has none).  0 or -1.  */
int gorc_perf_decode_id(const struct gorc_perf_layout *l, const uint8_t *rec, size_t len,
                        struct gorc_perf_id *id);

/* The sample_type bits of the sample_id_all trailer of non-sample
   records.  */
#define GORC_PERF_ID_BITS                                                                \
  (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |         \
   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* Bytes of the sample_id_all trailer of a non-sample record.  */
size_t gorc_perf_id_size(const struct gorc_perf_layout *l);

#endif
