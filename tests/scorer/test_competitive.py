from scorer import rank_players
from conftest import city_from_map


def test_players_ranked_by_total_with_ties_sharing_a_rank():
    cities = {"ann": city_from_map("R1 R2 R1"), "bob": city_from_map("G1 G2 G1"), "cy": city_from_map("R1 K2")}
    ranked = rank_players(cities, ["garden-city"])
    assert [(r["player"], r["rank"], r["total"]) for r in ranked] == [("ann", 1, 3), ("bob", 1, 3), ("cy", 3, -1)]
    assert all(r["sheet"].rules[0].id == "garden-city" for r in ranked)
