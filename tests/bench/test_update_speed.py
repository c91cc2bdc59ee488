"""bench/update_speed.py at a tiny scale: a recurrent entry's update timed with and without the segmented LSTM,
and a clear refusal when the setting left out is off on this CPU already."""

from __future__ import annotations

import pytest
import yaml

ENV_ID = "DoomItems-v1"
TINY_LSTM = {"algo": "recurrent_ppo", "n_envs": 2, "n_timesteps": 64, "policy": "CnnPolicy", "frame_stack": 1,
             "n_steps": 32, "batch_size": 32, "n_epochs": 1,
             "policy_kwargs": ("dict(features_extractor_class=SmallCNN, "
                               "features_extractor_kwargs=dict(features_dim=16), net_arch=[], lstm_hidden_size=8)"),
             "env_kwargs": {"resolution": [30, 40], "num_levels": 4}, "torch_threads": 1}


def test_times_the_recurrent_update_with_and_without_the_segmented_lstm(update_speed, tmp_path, capsys):
    conf = tmp_path / "tiny.yml"
    conf.write_text(yaml.safe_dump({ENV_ID: TINY_LSTM}))
    assert update_speed.main(["--env", ENV_ID, "--conf-file", str(conf), "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "recurrent_ppo, 32 x 2 samples" in out and "segmented_lstm=True" in out
    assert out.count("round ") == 2 and "without segmented_lstm" in out
    assert "speed ratio wadgym's settings / without segmented_lstm:" in out


def test_a_setting_this_cpu_does_not_use_is_refused_by_name(update_speed, tmp_path, capsys):
    from wadgym.agents.algos import cpu_computes_bf16

    if cpu_computes_bf16():
        pytest.skip("this CPU computes bfloat16: bf16_features is on, so there is something to compare")
    assert update_speed.main(["--env", ENV_ID, "--budget", "cpu", "--without", "bf16_features"]) == 1
    assert "bf16_features is off on this CPU already" in capsys.readouterr().out


def test_an_env_without_an_entry_is_a_clear_error(update_speed, capsys):
    with pytest.raises(SystemExit) as exit_info:
        update_speed.main(["--env", ENV_ID, "--budget", "cpu-long"])
    assert exit_info.value.code == 2
    assert "no hyperparameters for env 'DoomItems-v1'" in capsys.readouterr().err
