/* insee/insee.h — everything a plugin may include, in one header. */
#ifndef INSEE_INSEE_H
#define INSEE_INSEE_H

#include <insee/plugin.h>
#include <insee/rng.h>
#include <insee/host.h>
#include <insee/topology.h>
#include <insee/router.h>
#include <insee/arbiter.h>
#include <insee/traffic.h>
#include <insee/placement.h>
#include <insee/bridge.h>
#include <insee/routing.h>
#include <insee/selection.h>
#include <insee/allocation.h>

#endif
