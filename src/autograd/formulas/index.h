/* index.h: backward steps shared by the indexing formulas (index.c, scatter_reduce.c). */
#ifndef NABLA_FORMULAS_INDEX_H_
#define NABLA_FORMULAS_INDEX_H_

#include "../autograd.h"

/* A 0-dim zero of t's dtype. */
NB_INTERNAL nb_tensor* bw_zero_of(nb_bw* b, const nb_tensor* t);
/* g (shaped like an index) padded with zeros to m's shape (a src may be larger than its index). */
NB_INTERNAL nb_tensor* bw_pad_to(nb_bw* b, nb_tensor* g, const nb_tensor_meta* m);
NB_INTERNAL nb_tensor* bw_gather(nb_bw* b, const nb_tensor* t, int64_t dim, const nb_tensor* index);

#endif /* NABLA_FORMULAS_INDEX_H_ */
