/* shim/shim.c: libsbx-preload.so, the advisory preload shim.
 *
 * Placeholder until the shim lands (interposition, reports, --trace,
 * --learn): it builds, exports nothing and changes nothing, so
 * `make install` already has the file where the supervisor will look.
 */
#define SBX_EXPORT __attribute__((visibility("default")))
