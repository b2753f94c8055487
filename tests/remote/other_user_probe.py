"""Run as another local user by test_faults.py: what can it reach of a private cluster? Prints
one line per probe: each GCS call ANSWERED or REFUSED (code), the token READ or DENIED, the
folder LISTED or DENIED."""
import grpc, sys, os
from ray.core.generated import gcs_service_pb2 as pb, gcs_service_pb2_grpc as g
target, token, folder = sys.argv[1:4]
ch = grpc.insecure_channel(target)
for name, call in (("GetClusterId", lambda: g.NodeInfoGcsServiceStub(ch).GetClusterId(pb.GetClusterIdRequest(), timeout=10)),
                   ("GetAllNodeInfo", lambda: g.NodeInfoGcsServiceStub(ch).GetAllNodeInfo(pb.GetAllNodeInfoRequest(), timeout=10))):
    try:
        call(); print(name, "ANSWERED")
    except grpc.RpcError as e:
        print(name, "REFUSED", e.code().name)
try:
    open(token).read(); print("TOKEN READ")
except OSError as e:
    print("TOKEN DENIED", e.errno)
try:
    os.listdir(folder); print("FOLDER LISTED")
except OSError as e:
    print("FOLDER DENIED", e.errno)
