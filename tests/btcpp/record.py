"""Records a run of a patrol tree (a SubTree run twice, a Sleep, an Inverter) with
BehaviorTree.CPP's FileLogger2 into the .btlog named on the command line, ticking it 4
times, and prints each tick's result. tests/btcpp.rs replays such a recording; made with
BehaviorTree.CPP 4.8.2 (behaviortreepy 0.1.4), it is tests/fixtures/recordings/patrol.btlog."""
import behaviortreepy as b, time, sys
xml = '''<root BTCPP_format="4" main_tree_to_execute="Patrol">
  <BehaviorTree ID="Patrol">
    <Sequence name="patrol">
      <SubTree ID="Look" name="look_left"/>
      <SubTree ID="Look" name="look_right"/>
      <Sleep name="walk" msec="30"/>
      <Inverter name="not_done"><AlwaysSuccess name="done"/></Inverter>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Look">
    <Fallback name="look">
      <AlwaysFailure name="see_enemy"/>
      <AlwaysSuccess name="all_clear"/>
    </Fallback>
  </BehaviorTree>
</root>'''
f = b.BehaviorTreeFactory()
f.register_behavior_tree_from_text(xml)
t = f.create_tree("Patrol")
lg = b.FileLogger(t, sys.argv[1])
out = []
for i in range(4):
    out.append(str(t.tick_once()).split('.')[-1]); time.sleep(0.02)
del lg
print(" ".join(out))
