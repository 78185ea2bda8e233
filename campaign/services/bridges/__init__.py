"""Other tools' formats applied to a campaign: ココフォリア pieces and logs, and the BCDice-API
endpoint (the formats themselves live in campaign.bridges).
"""
