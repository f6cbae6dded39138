"""Self-play training: PPO (``ppo``), behaviour cloning (``imitation``), the
training app behind ``scripts/train.py`` (``app``) and the bid net's training (``bidnet``)."""
