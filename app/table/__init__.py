"""The table screen: a read-only live page for the TV at the table and the players' phones (issue 15)."""
