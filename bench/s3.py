#!/usr/bin/env python3
"""A minimal S3 client for the benchmarks: SigV4 (unsigned payload) PUT and GET with a thread pool.

  s3.py put ENDPOINT ACCESS SECRET BUCKET DIR [THREADS]   upload every file under DIR (key = path under DIR)
  s3.py get ENDPOINT ACCESS SECRET BUCKET LISTFILE [THREADS]   read every key in LISTFILE; prints files, bytes, seconds
"""
import concurrent.futures, datetime, hashlib, hmac, http.client, os, sys, time, urllib.parse

REGION, SERVICE = "us-east-1", "s3"


def sign(method, host, path, access, secret):
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    headers = {"host": host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-date": stamp}
    names = ";".join(sorted(headers))
    canonical = "\n".join([method, urllib.parse.quote(path), "", *[f"{k}:{headers[k]}" for k in sorted(headers)], "",
                           names, "UNSIGNED-PAYLOAD"])
    scope = f"{day}/{REGION}/{SERVICE}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (day, REGION, SERVICE, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = f"AWS4-HMAC-SHA256 Credential={access}/{scope}, SignedHeaders={names}, Signature={signature}"
    return headers


def request(endpoint, access, secret, method, path, body=None):
    url = urllib.parse.urlparse(endpoint)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
    connection.request(method, path, body=body, headers=sign(method, url.netloc, path, access, secret))
    response = connection.getresponse()
    size = 0
    while chunk := response.read(1 << 20):
        size += len(chunk)
    connection.close()
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: HTTP {response.status}")
    return size


def main():
    command, endpoint, access, secret, bucket, source = sys.argv[1:7]
    threads = int(sys.argv[7]) if len(sys.argv) > 7 else 8
    if command == "put":
        files = [os.path.join(d, f) for d, _, names in os.walk(source) for f in names]
        work = lambda f: request(endpoint, access, secret, "PUT", f"/{bucket}/{os.path.relpath(f, source)}",
                                 open(f, "rb").read())
    else:
        files = [line.strip() for line in open(source) if line.strip()]
        work = lambda k: request(endpoint, access, secret, "GET", f"/{bucket}/{k}")
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        sizes = list(pool.map(work, files))
    print(len(files), sum(sizes) if command == "get" else sum(os.path.getsize(f) for f in files),
          f"{time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    main()
