/* rootpath.h - moved to common/rootpath.h (the loader readers of common/platform_posix_loader.c
 * need it); this forwarder goes when its last includer (env.c, doctor.c) is converted */
#include "common/rootpath.h"
