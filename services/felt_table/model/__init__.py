"""The table's model: `Table` (seats, the current hand, the button and the parts it is built
from), table configurations (lobby) and finished-hand records (history)."""
