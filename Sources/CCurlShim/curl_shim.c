#include "curl_shim.h"

CURLcode boxvoice_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode boxvoice_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode boxvoice_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode boxvoice_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode boxvoice_curl_set_write_callback(CURL *handle, boxvoice_curl_data_callback callback, void *context) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    return rc != CURLE_OK ? rc : curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}

CURLcode boxvoice_curl_set_header_callback(CURL *handle, boxvoice_curl_data_callback callback, void *context) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    return rc != CURLE_OK ? rc : curl_easy_setopt(handle, CURLOPT_HEADERDATA, context);
}

CURLcode boxvoice_curl_set_progress_callback(CURL *handle, boxvoice_curl_progress_callback callback, void *context) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
    if (rc == CURLE_OK) rc = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
    return rc != CURLE_OK ? rc : curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

CURLcode boxvoice_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode boxvoice_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
