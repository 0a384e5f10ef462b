"""Disk usage helpers."""
import os
