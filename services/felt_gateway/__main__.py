from felt_gateway.app import make
from felt_runtime.service import serve

serve("gateway", make)
