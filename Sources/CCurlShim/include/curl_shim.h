#ifndef BOXVOICE_CURL_SHIM_H
#define BOXVOICE_CURL_SHIM_H

#include <curl/curl.h>

/// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these fix one argument type each.
CURLcode boxvoice_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode boxvoice_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode boxvoice_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode boxvoice_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value);

typedef size_t (*boxvoice_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*boxvoice_curl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                               curl_off_t upload_total, curl_off_t uploaded);
CURLcode boxvoice_curl_set_write_callback(CURL *handle, boxvoice_curl_data_callback callback, void *context);
CURLcode boxvoice_curl_set_header_callback(CURL *handle, boxvoice_curl_data_callback callback, void *context);
CURLcode boxvoice_curl_set_progress_callback(CURL *handle, boxvoice_curl_progress_callback callback, void *context);

CURLcode boxvoice_curl_get_long(CURL *handle, CURLINFO info, long *value);
CURLcode boxvoice_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value);

#endif
