/*
 * libc_netdb.c: name-service functions the libc's headers declare but its
 * library lacks (CPython's socket module refers to them). The sandbox has
 * no network: every lookup fails, as in wasi-sdk 22 and later.
 */
#include <netdb.h>
#include <stddef.h>

static int h_errno_value;

int *__h_errno_location(void)
{
    return &h_errno_value;
}

struct hostent *gethostbyname(const char *name)
{
    (void)name;
    h_errno_value = NO_RECOVERY;
    return NULL;
}

struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type)
{
    (void)addr;
    (void)len;
    (void)type;
    h_errno_value = NO_RECOVERY;
    return NULL;
}

struct servent *getservbyname(const char *name, const char *proto)
{
    (void)name;
    (void)proto;
    return NULL;
}

struct servent *getservbyport(int port, const char *proto)
{
    (void)port;
    (void)proto;
    return NULL;
}

struct protoent *getprotobyname(const char *name)
{
    (void)name;
    return NULL;
}

const char *hstrerror(int err)
{
    (void)err;
    return "the sandbox has no network access";
}
