/* The GSSAPI entry points Debian's libgit2.a calls for HTTP "Negotiate" (Kerberos) auth, for the
 * static binary only: Kerberos ships no .a. Each one answers GSS_S_UNAVAILABLE (or releases
 * nothing), so libgit2 reports Negotiate as unavailable and every other transport and auth works.
 * Signatures follow RFC 2744 (OM_uint32 = uint32_t, handles are pointers). */
#include <stddef.h>
#include <stdint.h>

#define GSS_S_UNAVAILABLE (16u << 16)

typedef uint32_t OM_uint32;
typedef struct {
  OM_uint32 length;
  void *elements;
} gss_OID_desc;
typedef struct {
  size_t length;
  void *value;
} gss_buffer_desc;

static gss_OID_desc hostbased_service = {0, NULL};
gss_OID_desc *GSS_C_NT_HOSTBASED_SERVICE = &hostbased_service;

static OM_uint32 unavailable(OM_uint32 *minor) {
  if (minor) *minor = 0;
  return GSS_S_UNAVAILABLE;
}

static OM_uint32 done(OM_uint32 *minor) {
  if (minor) *minor = 0;
  return 0;
}

static void empty(gss_buffer_desc *buffer) {
  if (buffer) {
    buffer->length = 0;
    buffer->value = NULL;
  }
}

OM_uint32 gss_indicate_mechs(OM_uint32 *minor, void **mech_set) {
  if (mech_set) *mech_set = NULL;
  return unavailable(minor);
}

OM_uint32 gss_release_oid_set(OM_uint32 *minor, void **set) {
  if (set) *set = NULL;
  return done(minor);
}

OM_uint32 gss_import_name(OM_uint32 *minor, const gss_buffer_desc *name, const gss_OID_desc *type,
                          void **out) {
  (void)name;
  (void)type;
  if (out) *out = NULL;
  return unavailable(minor);
}

OM_uint32 gss_release_name(OM_uint32 *minor, void **name) {
  if (name) *name = NULL;
  return done(minor);
}

OM_uint32 gss_init_sec_context(OM_uint32 *minor, void *cred, void **context, void *target,
                               gss_OID_desc *mech, OM_uint32 flags, OM_uint32 time_req,
                               void *bindings, const gss_buffer_desc *input, gss_OID_desc **actual_mech,
                               gss_buffer_desc *output, OM_uint32 *ret_flags, OM_uint32 *time_rec) {
  (void)cred;
  (void)context;
  (void)target;
  (void)mech;
  (void)flags;
  (void)time_req;
  (void)bindings;
  (void)input;
  if (actual_mech) *actual_mech = NULL;
  empty(output);
  if (ret_flags) *ret_flags = 0;
  if (time_rec) *time_rec = 0;
  return unavailable(minor);
}

OM_uint32 gss_delete_sec_context(OM_uint32 *minor, void **context, gss_buffer_desc *output) {
  if (context) *context = NULL;
  empty(output);
  return done(minor);
}

OM_uint32 gss_release_buffer(OM_uint32 *minor, gss_buffer_desc *buffer) {
  empty(buffer);
  return done(minor);
}

OM_uint32 gss_display_status(OM_uint32 *minor, OM_uint32 status, int status_type, gss_OID_desc *mech,
                             OM_uint32 *message_context, gss_buffer_desc *text) {
  static char message[] = "GSSAPI (Kerberos) is not available in the static relforge binary";
  (void)status;
  (void)status_type;
  (void)mech;
  if (message_context) *message_context = 0;
  if (text) {
    text->length = sizeof message - 1;
    text->value = message;
  }
  return done(minor);
}
