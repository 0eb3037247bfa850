"""Several processes on one database: table leases and routing each command to the process holding its table."""
