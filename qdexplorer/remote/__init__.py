"""Devices on other machines (Ray). Nothing here is imported unless a cluster is asked for, so a
local session never imports Ray."""
